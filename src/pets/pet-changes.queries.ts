import { and, eq, exists, ne, notExists, sql } from "drizzle-orm";
import { type Creator, ownerValues } from "../accounts/owner.ts";
import { type Changer, callersAccount, changerValues } from "../catalogue/ownership.ts";
import { change } from "../changes/change.ts";
import type { Claim, Outcome } from "../changes/outcomes.ts";
import { type Database, type Drizzle, markedForRemoval, millis } from "../db/database.ts";
import { insertWhere } from "../db/insert-where.ts";
import { photos } from "../db/photos-table.ts";
import { accounts, categories, orders, pets } from "../db/schema.ts";
import { indexName, petSearch, unindexName } from "../db/search-tables.ts";
import {
  insertedProfile,
  insertedProfileValues,
  profileValue,
  type ShelterStanding,
  shelterNoneOrOwned,
  shelterStanding,
  updatedProfile,
} from "./pet-profile.queries.ts";
import type { PetProfile } from "./pet-profile.schemas.ts";
import { categoryKnownOrKept, knownCategory, live, petShape } from "./pets.queries.ts";
import type { NewPet, Pet, PetStatus } from "./pets.schemas.ts";

/**
 * The changes of an animal, each one D1 batch: its row, the words of its
 * name in the search index, and its events, together or not at all. Each
 * change of an animal adds one to its version (its etag), except its
 * deletion, which ends it at its last.
 */

const petId = sql.placeholder("id");
const thisPet = eq(pets.id, petId);
/** The animal the batch just inserted (the search index's insert leaves its rowid, the same id). */
const inserted = eq(pets.id, sql`last_insert_rowid()`);
/** Only while the animal is at the version the change was decided on. */
const atVersion = eq(pets.version, sql.placeholder("version"));
const nextVersion = sql`${pets.version} + 1`;
const placedOrder = (db: Drizzle) =>
  db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.petId, pets.id), eq(orders.status, "placed")));

/** The animals' index of names. */
const search = { index: petSearch, of: pets };

/**
 * The animal's INSERT, returning it: only into a category that exists, in
 * no shelter or one of the caller's, and for a key whose account D1 holds. The first step of a create (exported so
 * a bench floor can run it alone, to show what the rest of the batch costs).
 */
export function insertPet(db: Drizzle) {
  return insertWhere(db, pets, {
    row: {
      id: sql<null>`NULL`.as("id"),
      name: sql<string>`${sql.placeholder("name")}`.as("name"),
      categoryId: categories.id,
      status: sql<PetStatus>`${sql.placeholder("status")}`.as("status"),
      accountId: sql<number | null>`${callersAccount}`.as("account_id"),
      version: sql<number>`1`.as("version"),
      createdAt: millis("now").as("created_at"),
      deletedAt: sql<null>`NULL`.as("deleted_at"),
      ...insertedProfile(),
    },
    from: categories,
    where: and(knownCategory, shelterNoneOrOwned, sql`${callersAccount} IS NOT NULL`),
  })
    .returning(petShape.columns)
    .prepare();
}

/**
 * Adding an animal: the insert; its name's and breed's words; its event;
 * then whether the category exists and what the shelter is to the caller,
 * to say why nothing was added. A keyed create stores the animal as its reply.
 */
const creation = change()
  .step("pet", insertPet)
  .step("indexed", (db) => indexName(db, search, inserted))
  .event({ type: "pet.created", data: petShape, where: inserted })
  // One read for both reasons: a batch's every statement adds its own answer for the Worker to parse.
  .read("refusal", (db) =>
    db
      .select({
        categoryId: sql<
          number | null
        >`(SELECT ${categories.id} FROM ${categories} WHERE ${knownCategory})`,
        standing: sql<ShelterStanding | null>`${shelterStanding}`,
      })
      .from(accounts)
      .where(eq(accounts.id, callersAccount))
      .prepare(),
  )
  .reply(201, petShape, inserted);

/** Why nothing was added: the category or the shelter names none, or the shelter is another account's. */
type CreateRefusal =
  | { kind: "unknownCategory" }
  | { kind: "unknownShelter" }
  | { kind: "notOwner" };

/** What a create binds: the animal as sent, `available` unless it says otherwise, and its owner. */
export function newPetValues(newPet: NewPet, { owner, now }: Creator) {
  return {
    name: newPet.name,
    categoryId: newPet.categoryId,
    status: newPet.status ?? "available",
    ...insertedProfileValues(newPet),
    ...ownerValues(owner),
    now,
  };
}

/**
 * Adds the animal, owned by the caller's account, and its `pet.created`
 * event in one batch, or nothing when its category does not exist. With a
 * claim, the response is stored with the Idempotency-Key in the same batch:
 * exactly one animal per key, and a replay answers as the first reply did
 * even after the animal has changed.
 */
export function createPet(
  db: Database,
  newPet: NewPet,
  creator: Creator,
  claim: Claim | undefined,
): Promise<Outcome<Pet, CreateRefusal>> {
  return creation.answer(db, {
    values: newPetValues(newPet, creator),
    claim,
    made: ({ pet: [row] }) => row && petShape.render(row),
    refused: ({ refusal: [why] }): CreateRefusal => {
      if (why && why.categoryId === null) return { kind: "unknownCategory" };
      if (why?.standing === "unknown") return { kind: "unknownShelter" };
      if (why?.standing === "another account's") return { kind: "notOwner" };
      // Every authenticated key and signed-in person has an account row; reaching this means the data is broken.
      throw new Error("no account owns the caller, so the animal was not added");
    },
  });
}

/**
 * Changing an animal's fields: the update, only at the version the change
 * was decided on, into a category that exists, and (when its status moves)
 * while no order is placed for it; the words of a new name; `pet.updated`,
 * and `pet.status_changed` when its status moved.
 */
function updating({ renames, movesStatus }: { renames: boolean; movesStatus: boolean }) {
  const updated = change().step("updated", (db) =>
    db
      .update(pets)
      .set({
        name: sql`coalesce(${sql.placeholder("name")}, ${pets.name})`,
        categoryId: sql`coalesce(${sql.placeholder("categoryId")}, ${pets.categoryId})`,
        status: sql`coalesce(${sql.placeholder("status")}, ${pets.status})`,
        ...updatedProfile(),
        version: nextVersion,
      })
      .where(
        and(
          thisPet,
          atVersion,
          live,
          categoryKnownOrKept,
          shelterNoneOrOwned,
          movesStatus ? notExists(placedOrder(db)) : undefined,
        ),
      )
      .returning(petShape.columns)
      .prepare(),
  );
  const named = renames
    ? updated
        .step("unindexed", (db) => unindexName(db, search, petId))
        .step("indexed", (db) => indexName(db, search, thisPet))
    : updated;
  const told = named.event({
    type: "pet.updated",
    data: petShape,
    where: thisPet,
    changes: sql<string>`${sql.placeholder("changes")}`,
  });
  return movesStatus
    ? told.event({
        type: "pet.status_changed",
        data: petShape,
        where: thisPet,
        previousStatus: sql.placeholder("previousStatus"),
      })
    : told;
}

/** The four ways a change of fields can be made, each declared once. */
const updates = {
  fields: updating({ renames: false, movesStatus: false }),
  renaming: updating({ renames: true, movesStatus: false }),
  moving: updating({ renames: false, movesStatus: true }),
  renamingAndMoving: updating({ renames: true, movesStatus: true }),
};

/** What an animal's change sets, beside the version it was decided on. */
export interface PetUpdate {
  id: number;
  version: number;
  name?: string | undefined;
  categoryId?: number | undefined;
  status?: PetStatus | undefined;
  /** The profile's fields it sets, `null` for those it clears. */
  profile: Partial<PetProfile>;
  /** The status before, when `status` moves it. */
  previousStatus?: PetStatus | undefined;
  /** The names of the fields that change, as `pet.updated` lists them. */
  changes: readonly string[];
}

/**
 * Writes the change, if the animal is still at `version` (and its new
 * category exists, and no order has been placed if its status moves): the
 * animal after it, or undefined when it changed nothing.
 */
export async function updatePet(db: Database, update: PetUpdate, changer: Changer) {
  // The index holds the words of the name and the breed: either changing writes them again.
  const renames = update.name !== undefined || update.profile.breed !== undefined;
  const movesStatus = update.status !== undefined;
  const declared = renames
    ? movesStatus
      ? updates.renamingAndMoving
      : updates.renaming
    : movesStatus
      ? updates.moving
      : updates.fields;
  const { results } = await declared.run(db, {
    id: update.id,
    version: update.version,
    name: update.name ?? null,
    categoryId: update.categoryId ?? null,
    status: update.status ?? null,
    shelterId: update.profile.shelterId ?? null,
    profile: profileValue(update.profile),
    previousStatus: update.previousStatus ?? null,
    changes: JSON.stringify(update.changes),
    ...changerValues(changer),
  });
  const [row] = results.updated;
  return { pet: row && petShape.render(row) };
}

/** The animal may be deleted: it is at the version the deletion was decided on, and no order is placed for it. */
const deletable = (db: Drizzle) => and(thisPet, atVersion, live, notExists(placedOrder(db)));

/**
 * Deleting an animal: its photos (uploads under way too) are marked for
 * deletion, and its row becomes a tombstone, both only while it may be
 * deleted; its words leave the index; `pet.deleted`; then the photos whose
 * objects are to go. The tombstone keeps the animal's last version, so
 * `pet.deleted` carries the animal as it was, its last etag included.
 */
const deletion = change()
  // First, since the steps after the tombstone each follow the one before it.
  .step("photosReleased", (db) =>
    db
      .update(photos)
      .set({ state: "deleting" })
      .where(
        and(
          eq(photos.petId, petId),
          ne(photos.state, "deleting"),
          exists(db.select({ id: pets.id }).from(pets).where(deletable(db))),
        ),
      )
      .prepare(),
  )
  .step("deleted", (db) =>
    db
      .update(pets)
      .set({ deletedAt: millis("now") })
      .where(deletable(db))
      .returning({ id: pets.id })
      .prepare(),
  )
  .step("unindexed", (db) => unindexName(db, search, petId))
  .event({ type: "pet.deleted", data: petShape, where: thisPet })
  .read("photos", (db) =>
    db
      .select({ id: photos.id })
      .from(photos)
      .where(and(eq(photos.petId, petId), eq(photos.state, "deleting")))
      .prepare(),
  );

/**
 * Deletes the animal if it is still at `version`: whether it did. Its
 * photos, marked `deleting` in the batch, are recorded where `db` keeps its
 * changes, for the step after the request's handler to delete.
 */
export async function deletePet(
  db: Database,
  { id, version, now }: { id: number; version: number; now: number },
): Promise<boolean> {
  const { results } = await deletion.run(db, { id, version, now });
  markedForRemoval(
    db,
    results.photos.map((photo) => photo.id),
  );
  return results.deleted.length > 0;
}
