import {
  type ChangeRequest,
  type CommonRefusal,
  checked,
  MAX_ATTEMPTS,
} from "../catalogue/changes.ts";
import type { Database } from "../db/database.ts";
import { deleteCategory, readForChange, renameCategory } from "./categories.queries.ts";
import type { Category } from "./categories.schemas.ts";

/** Renaming and deleting a category, as every change of the catalogue is made (`catalogue/changes.ts`). */

export type CategoryRefusal =
  | CommonRefusal
  | { kind: "nameTaken"; takenBy: number }
  | { kind: "inUse" };

/** Gives the category the name; the same name as it has already writes nothing. */
export async function editCategory(
  db: Database,
  request: ChangeRequest,
  name: string,
): Promise<
  | CategoryRefusal
  | { kind: "renamed"; category: Category }
  | { kind: "unchanged"; category: Category }
> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = checked(await readForChange(db, request.id, request.changer), request.accepted);
    if ("kind" in current) return current;
    if (current.category.name === name) return { kind: "unchanged", category: current.category };
    const renamed = await renameCategory(db, { id: request.id, version: current.version, name });
    if (renamed.kind !== "moved") return renamed;
  }
  throw new Error(`category ${request.id} changed under ${MAX_ATTEMPTS} renames in a row`);
}

/** Deletes the category, as the caller may, `If-Match` allows and no live animal forbids. */
export async function removeCategory(
  db: Database,
  request: ChangeRequest,
  now: number,
): Promise<CategoryRefusal | { kind: "deleted" }> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = checked(await readForChange(db, request.id, request.changer), request.accepted);
    if ("kind" in current) return current;
    if (current.inUse) return { kind: "inUse" };
    const { deleted } = await deleteCategory(db, {
      id: request.id,
      version: current.version,
      now,
    });
    if (deleted) return { kind: "deleted" };
  }
  throw new Error(`category ${request.id} changed under ${MAX_ATTEMPTS} deletions in a row`);
}
