import { type ChangeRequest, type CommonRefusal, changeRecord } from "../catalogue/changes.ts";
import type { Database } from "../db/database.ts";
import { columnsOf, deleteShelter, updateShelter } from "./shelter-changes.queries.ts";
import { readShelterForChange } from "./shelters.queries.ts";
import type { Shelter, ShelterPatch } from "./shelters.schemas.ts";

/** Editing and deleting a shelter, as every change of the catalogue is made (`catalogue/changes.ts`). */

/** Why nothing changed, in the order the checks are made. */
type ShelterRefusal = CommonRefusal | { kind: "inUse" };

type EditOutcome =
  | CommonRefusal
  | { kind: "edited"; shelter: Shelter }
  /** The patch sets what the shelter already has: nothing is written. */
  | { kind: "unchanged"; shelter: Shelter };

type DeleteOutcome = ShelterRefusal | { kind: "deleted" };

/**
 * The shelter with the merge patch applied (RFC 7396): members sent replace,
 * `null` clears; `address` merges member by member.
 */
function patched(shelter: Shelter, patch: ShelterPatch): Shelter {
  const { address, ...fields } = patch;
  return { ...shelter, ...fields, address: { ...shelter.address, ...address } };
}

/** Whether the patch leaves the shelter as it is. */
function unchanged(before: Shelter, after: Shelter): boolean {
  return JSON.stringify(columnsOf(before)) === JSON.stringify(columnsOf(after));
}

/** Applies the merge patch to the shelter, as the caller may and `If-Match` allows. */
export async function editShelter(
  db: Database,
  request: ChangeRequest,
  patch: ShelterPatch,
): Promise<EditOutcome> {
  return changeRecord(
    "edit of shelter",
    request,
    () => readShelterForChange(db, request.id, request.changer),
    async (current): Promise<EditOutcome | undefined> => {
      const after = patched(current.shelter, patch);
      if (unchanged(current.shelter, after)) return { kind: "unchanged", shelter: current.shelter };
      const { shelter } = await updateShelter(db, {
        id: request.id,
        version: current.version,
        columns: columnsOf(after),
      });
      return shelter && { kind: "edited", shelter };
    },
  );
}

/** Deletes the shelter, as the caller may, `If-Match` allows and no live animal living there forbids. */
export async function removeShelter(
  db: Database,
  request: ChangeRequest,
  now: number,
): Promise<DeleteOutcome> {
  return changeRecord(
    "deletion of shelter",
    request,
    () => readShelterForChange(db, request.id, request.changer),
    async (current): Promise<DeleteOutcome | undefined> => {
      if (current.inUse) return { kind: "inUse" };
      const { deleted } = await deleteShelter(db, {
        id: request.id,
        version: current.version,
        now,
      });
      return deleted ? { kind: "deleted" } : undefined;
    },
  );
}
