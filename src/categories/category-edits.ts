import { meetsIfMatch } from "../api/entity-tags.ts";
import type { Changer } from "../catalogue/ownership.ts";
import type { ChangeEvents } from "../changes/outcomes.ts";
import type { Database } from "../db/database.ts";
import {
  type CategoryForChange,
  deleteCategory,
  readForChange,
  renameCategory,
} from "./categories.queries.ts";
import type { Category } from "./categories.schemas.ts";

/**
 * Renaming and deleting a category, as animals are edited: decided from the
 * category as read where changes are made, written in one batch that holds
 * only while it is still at the version read, decided afresh when another
 * change came between.
 */

export type CategoryRefusal =
  | { kind: "notFound" }
  | { kind: "notOwner" }
  | { kind: "preconditionFailed" }
  | { kind: "nameTaken"; takenBy: number }
  | { kind: "inUse" };

export interface CategoryChangeRequest {
  id: number;
  changer: Changer;
  /** The versions `If-Match` accepts; undefined for any. */
  accepted: readonly number[] | undefined;
}

/** As for animals: reached only under a flood of changes to one category. */
const MAX_ATTEMPTS = 20;

function checked(
  current: CategoryForChange | undefined,
  accepted: readonly number[] | undefined,
): CategoryForChange | CategoryRefusal {
  if (!current) return { kind: "notFound" };
  if (!current.owned) return { kind: "notOwner" };
  if (!meetsIfMatch(accepted, current.version)) return { kind: "preconditionFailed" };
  return current;
}

/** Gives the category the name; the same name as it has already writes nothing. */
export async function editCategory(
  db: Database,
  request: CategoryChangeRequest,
  name: string,
): Promise<
  | CategoryRefusal
  | ({ kind: "renamed"; category: Category } & ChangeEvents)
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
  request: CategoryChangeRequest,
  now: number,
): Promise<CategoryRefusal | ({ kind: "deleted" } & ChangeEvents)> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = checked(await readForChange(db, request.id, request.changer), request.accepted);
    if ("kind" in current) return current;
    if (current.inUse) return { kind: "inUse" };
    const { deleted, eventsWaiting } = await deleteCategory(db, {
      id: request.id,
      version: current.version,
      now,
    });
    if (deleted) return { kind: "deleted", eventsWaiting };
  }
  throw new Error(`category ${request.id} changed under ${MAX_ATTEMPTS} deletions in a row`);
}
