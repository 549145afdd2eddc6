import { type ChangeRequest, type CommonRefusal, changeRecord } from "../catalogue/changes.ts";
import type { Database } from "../db/database.ts";
import { deleteCategory, readForChange, renameCategory } from "./categories.queries.ts";
import type { Category } from "./categories.schemas.ts";

/** Renaming and deleting a category, as every change of the catalogue is made (`catalogue/changes.ts`). */

type CategoryRefusal = CommonRefusal | { kind: "nameTaken"; takenBy: number } | { kind: "inUse" };

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
  return changeRecord(
    "rename of category",
    request,
    () => readForChange(db, request.id, request.changer),
    async (current) => {
      if (current.category.name === name) return { kind: "unchanged", category: current.category };
      const renamed = await renameCategory(db, { id: request.id, version: current.version, name });
      return renamed.kind === "moved" ? undefined : renamed;
    },
  );
}

/** Deletes the category, as the caller may, `If-Match` allows and no live animal forbids. */
export async function removeCategory(
  db: Database,
  request: ChangeRequest,
  now: number,
): Promise<CategoryRefusal | { kind: "deleted" }> {
  return changeRecord(
    "deletion of category",
    request,
    () => readForChange(db, request.id, request.changer),
    async (current) => {
      if (current.inUse) return { kind: "inUse" as const };
      const { deleted } = await deleteCategory(db, {
        id: request.id,
        version: current.version,
        now,
      });
      return deleted ? { kind: "deleted" as const } : undefined;
    },
  );
}
