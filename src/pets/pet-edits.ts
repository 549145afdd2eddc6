import { type ChangeRequest, type CommonRefusal, changeRecord } from "../catalogue/changes.ts";
import type { Database } from "../db/database.ts";
import { deletePet, type PetUpdate, updatePet } from "./pet-changes.queries.ts";
import { profileOf } from "./pet-profile.schemas.ts";
import { type PetForChange, readForChange } from "./pets.queries.ts";
import type { Pet, PetPatch } from "./pets.schemas.ts";

/** Editing and deleting an animal, as every change of the catalogue is made (`catalogue/changes.ts`). */

/** Why nothing changed, in the order the checks are made. */
type PetRefusal =
  | CommonRefusal
  | { kind: "unknownCategory" }
  | { kind: "unknownShelter" }
  | { kind: "orderOpen"; orderId: number };

type EditOutcome =
  | PetRefusal
  | { kind: "edited"; pet: Pet }
  /** The patch sets what the animal already has: nothing is written. */
  | { kind: "unchanged"; pet: Pet };

type DeleteOutcome =
  | PetRefusal
  /** Deleted; its photos' objects are still to delete (recorded on the request). */
  | { kind: "deleted" };

/** What the patch changes on the animal as it is: the fields that differ, in the API's order. */
function changeOf(current: PetForChange, patch: PetPatch): PetUpdate {
  const { pet } = current;
  const name = patch.name !== undefined && patch.name !== pet.name ? patch.name : undefined;
  const categoryId =
    patch.categoryId !== undefined && patch.categoryId !== pet.categoryId
      ? patch.categoryId
      : undefined;
  const status =
    patch.status !== undefined && patch.status !== pet.status ? patch.status : undefined;
  const profile = Object.fromEntries(
    Object.entries(profileOf(patch)).filter(
      ([field, value]) => value !== pet[field as keyof typeof pet],
    ),
  );
  const changed = { name, categoryId, status };
  return {
    id: pet.id,
    version: current.version,
    ...changed,
    profile,
    previousStatus: status === undefined ? undefined : pet.status,
    changes: [
      ...Object.entries(changed)
        .filter(([, value]) => value !== undefined)
        .map(([field]) => field),
      ...Object.keys(profile),
    ],
  };
}

/** Why the shelter the change moves the animal to refuses it, if it does. */
function shelterRefusal(current: PetForChange, update: PetUpdate): PetRefusal | undefined {
  if (update.profile.shelterId === undefined || update.profile.shelterId === null) return undefined;
  if (current.shelter === "unknown") return { kind: "unknownShelter" };
  if (current.shelter === "another account's") return { kind: "notOwner" };
  return undefined;
}

/** Applies the patch to the animal, as the caller may and `If-Match` allows. */
export async function editPet(
  db: Database,
  request: ChangeRequest,
  patch: PetPatch,
): Promise<EditOutcome> {
  return changeRecord(
    "edit of animal",
    request,
    () =>
      readForChange(db, { ...request, categoryId: patch.categoryId, shelterId: patch.shelterId }),
    async (current): Promise<EditOutcome | undefined> => {
      if (!current.categoryKnown) return { kind: "unknownCategory" };
      const update = changeOf(current, patch);
      const refusal = shelterRefusal(current, update);
      if (refusal) return refusal;
      if (update.status !== undefined && current.placedOrder !== null) {
        return { kind: "orderOpen", orderId: current.placedOrder };
      }
      if (update.changes.length === 0) return { kind: "unchanged", pet: current.pet };
      const { pet } = await updatePet(db, update, request.changer);
      return pet && { kind: "edited", pet };
    },
  );
}

/** Deletes the animal, as the caller may, `If-Match` allows and no placed order forbids. */
export async function removePet(
  db: Database,
  request: ChangeRequest,
  now: number,
): Promise<DeleteOutcome> {
  return changeRecord(
    "deletion of animal",
    request,
    () => readForChange(db, { ...request, categoryId: undefined, shelterId: undefined }),
    async (current): Promise<DeleteOutcome | undefined> => {
      if (current.placedOrder !== null) return { kind: "orderOpen", orderId: current.placedOrder };
      const deleted = await deletePet(db, { id: request.id, version: current.version, now });
      return deleted ? { kind: "deleted" } : undefined;
    },
  );
}
