import { and, eq, exists, isNull, ne, notExists, or, type SQL, sql } from "drizzle-orm";
import { type Creator, ownerValues } from "../accounts/owner.ts";
import { callersAccount } from "../catalogue/ownership.ts";
import { change, deletionBy } from "../changes/change.ts";
import type { Claim, Outcome } from "../changes/outcomes.ts";
import { type Database, type Drizzle, millis } from "../db/database.ts";
import { insertWhere } from "../db/insert-where.ts";
import { shelterPlaces } from "../db/places-table.ts";
import { accounts, pets } from "../db/schema.ts";
import { indexName, shelterSearch, unindexName } from "../db/search-tables.ts";
import { shelters } from "../db/shelters-table.ts";
import type { Plan } from "../rate-limit/plans.ts";
import { liveShelter, shelterShape } from "./shelters.queries.ts";
import type { NewShelter, Shelter } from "./shelters.schemas.ts";

/**
 * The changes of a shelter, each one D1 batch: its row, its place in the
 * R*Tree of places, the words of its name in the search index, and its
 * events, together or not at all. Each change adds one to its version (its
 * etag).
 */

/** The shelters an account may hold, by its plan; a lowered plan keeps those it has. */
const SHELTERS_BY_PLAN: Record<Plan, number> = {
  free: 1,
  pro: 5,
  business: 50,
  enterprise: 500,
};

const shelterId = sql.placeholder("id");
const thisShelter = eq(shelters.id, shelterId);
/** The shelter the batch just inserted (the names index's insert leaves its rowid, the same id). */
const inserted = eq(shelters.id, sql`last_insert_rowid()`);
const atVersion = eq(shelters.version, sql.placeholder("version"));
const nextVersion = sql`${shelters.version} + 1`;
const names = { index: shelterSearch, of: shelters };

/** Each plan's cap, as SQL over the plan column of the account in scope. */
const capOfPlan = sql`CASE ${accounts.plan} ${sql.raw(
  Object.entries(SHELTERS_BY_PLAN)
    .map(([plan, cap]) => `WHEN '${plan}' THEN ${cap}`)
    .join(" "),
)} END`;

/** True while the account in scope holds fewer live shelters than its plan allows. */
const underCap = sql`(SELECT count(*) FROM ${shelters} WHERE ${shelters.accountId} = ${accounts.id} AND ${liveShelter}) < ${capOfPlan}`;

/** A step that places the shelter `which` finds, as a box of one point with its own coordinates, if the statement before changed one row. */
const placing = (db: Drizzle, which: SQL) =>
  db
    .insert(shelterPlaces)
    .select(
      db
        .select({
          id: shelters.id,
          minLat: shelters.latitude,
          maxLat: shelters.latitude,
          minLon: shelters.longitude,
          maxLon: shelters.longitude,
          latitude: shelters.latitude,
          longitude: shelters.longitude,
        })
        .from(shelters)
        .where(and(which, sql`changes() = 1`)),
    )
    .prepare();

/** A shelter's columns as a change binds them, in the table's order. */
const bound = <T>(name: string) => sql<T>`${sql.placeholder(name)}`;

/**
 * Adding a shelter: the insert, for the caller's account while it is under
 * its plan's cap (count and insert are one statement, so concurrent creates
 * serialise in the database and the cap holds exactly); its name's words;
 * its event; then the account, to say why nothing was added. A keyed create
 * stores the shelter as its reply.
 */
const creation = change()
  .step("shelter", (db) =>
    insertWhere(db, shelters, {
      row: {
        id: sql<null>`NULL`.as("id"),
        accountId: accounts.id,
        name: bound<string>("name").as("name"),
        email: bound<string>("email").as("email"),
        phone: bound<string | null>("phone").as("phone"),
        website: bound<string | null>("website").as("website"),
        street: bound<string | null>("street").as("street"),
        city: bound<string>("city").as("city"),
        region: bound<string | null>("region").as("region"),
        postalCode: bound<string | null>("postalCode").as("postal_code"),
        country: bound<string>("country").as("country"),
        latitude: bound<number>("latitude").as("latitude"),
        longitude: bound<number>("longitude").as("longitude"),
        version: sql<number>`1`.as("version"),
        createdAt: millis("now").as("created_at"),
        deletedAt: sql<null>`NULL`.as("deleted_at"),
      },
      from: accounts,
      where: and(eq(accounts.id, callersAccount), underCap),
    })
      .returning(shelterShape.columns)
      .prepare(),
  )
  // The R*Tree's insert, with the id given, leaves last_insert_rowid() at the shelter's id.
  .step("placed", (db) => placing(db, inserted))
  .step("indexed", (db) => indexName(db, names, inserted))
  .event({ type: "shelter.created", data: shelterShape, where: inserted })
  .read("account", (db) =>
    db
      .select({ plan: accounts.plan })
      .from(accounts)
      .where(eq(accounts.id, callersAccount))
      .prepare(),
  )
  .reply(201, shelterShape, inserted);

/** A shelter's fields as its columns hold them: the address's members flattened. */
interface ShelterColumns {
  name: string;
  email: string;
  phone: string | null;
  website: string | null;
  street: string | null;
  city: string;
  region: string | null;
  postalCode: string | null;
  country: string;
  latitude: number;
  longitude: number;
}

/** A shelter's fields as a change binds them. */
export function columnsOf(shelter: Omit<Shelter, "id" | "etag" | "distanceKm">): ShelterColumns {
  const { address, ...fields } = shelter;
  return {
    name: fields.name,
    email: fields.email,
    phone: fields.phone,
    website: fields.website,
    ...address,
    latitude: fields.latitude,
    longitude: fields.longitude,
  };
}

/** A new shelter's fields, each optional one null when not sent. */
function newShelterColumns(newShelter: NewShelter): ShelterColumns {
  const { address } = newShelter;
  return columnsOf({
    ...newShelter,
    phone: newShelter.phone ?? null,
    website: newShelter.website ?? null,
    address: {
      street: address.street ?? null,
      city: address.city,
      region: address.region ?? null,
      postalCode: address.postalCode ?? null,
      country: address.country,
    },
  });
}

/**
 * Adds the shelter, owned by the caller's account, and its `shelter.created`
 * event in one batch, or nothing when the account holds as many as its plan
 * allows (the refusal says how many that is). With a claim, the reply is stored with the Idempotency-Key in the
 * same batch.
 */
export function createShelter(
  db: Database,
  newShelter: NewShelter,
  { owner, now }: Creator,
  claim: Claim | undefined,
): Promise<Outcome<Shelter, { kind: "limitReached"; cap: number }>> {
  return creation.answer(db, {
    values: { ...newShelterColumns(newShelter), ...ownerValues(owner), now },
    claim,
    made: ({ shelter: [row] }) => row && shelterShape.render(row),
    refused: ({ account: [account] }) => {
      // Every authenticated key and signed-in person has an account row; reaching this means the data is broken.
      if (!account) throw new Error("no account owns the caller, so the shelter was not added");
      return { kind: "limitReached", cap: SHELTERS_BY_PLAN[account.plan] };
    },
  });
}

/**
 * Changing a shelter: its place moved first when the change moves it (a
 * step of its own, so that the steps after, which go on only when the one
 * before changed a row, do not depend on whether it moved); every column set
 * to the shelter as the change decided it, only at the version it was
 * decided on; the words of its name; its event.
 */
const updating = change()
  .step("moved", (db) =>
    db
      .update(shelterPlaces)
      .set({
        minLat: bound<number>("latitude"),
        maxLat: bound<number>("latitude"),
        minLon: bound<number>("longitude"),
        maxLon: bound<number>("longitude"),
        latitude: bound<number>("latitude"),
        longitude: bound<number>("longitude"),
      })
      .where(
        and(
          eq(shelterPlaces.id, shelterId),
          exists(
            db
              .select({ id: shelters.id })
              .from(shelters)
              .where(
                and(
                  thisShelter,
                  atVersion,
                  liveShelter,
                  or(
                    ne(shelters.latitude, bound<number>("latitude")),
                    ne(shelters.longitude, bound<number>("longitude")),
                  ),
                ),
              ),
          ),
        ),
      )
      .prepare(),
  )
  .step("updated", (db) =>
    db
      .update(shelters)
      .set({
        name: bound<string>("name"),
        email: bound<string>("email"),
        phone: bound<string | null>("phone"),
        website: bound<string | null>("website"),
        street: bound<string | null>("street"),
        city: bound<string>("city"),
        region: bound<string | null>("region"),
        postalCode: bound<string | null>("postalCode"),
        country: bound<string>("country"),
        latitude: bound<number>("latitude"),
        longitude: bound<number>("longitude"),
        version: nextVersion,
      })
      .where(and(thisShelter, atVersion, liveShelter))
      .returning(shelterShape.columns)
      .prepare(),
  )
  .step("unindexed", (db) => unindexName(db, names, shelterId))
  .step("indexed", (db) => indexName(db, names, thisShelter))
  .event({ type: "shelter.updated", data: shelterShape, where: thisShelter });

/** Writes the shelter as decided, if it is still at `version`: it after, or undefined when it changed meanwhile. */
export async function updateShelter(
  db: Database,
  update: { id: number; version: number; columns: ShelterColumns },
): Promise<{ shelter: Shelter | undefined }> {
  const { results } = await updating.run(db, {
    id: update.id,
    version: update.version,
    ...update.columns,
  });
  const [row] = results.updated;
  return { shelter: row && shelterShape.render(row) };
}

/**
 * Deleting a shelter: it becomes a tombstone, only at the version the
 * deletion was decided on and while no live animal lives there; its words
 * leave the index and its place the R*Tree; its event shows it as it was.
 */
const deletion = change()
  .step("deleted", (db) =>
    db
      .update(shelters)
      .set({ deletedAt: millis("now"), version: nextVersion })
      .where(
        and(
          thisShelter,
          atVersion,
          liveShelter,
          notExists(
            db
              .select({ id: pets.id })
              .from(pets)
              .where(and(eq(pets.shelterId, shelters.id), isNull(pets.deletedAt))),
          ),
        ),
      )
      .returning({ id: shelters.id })
      .prepare(),
  )
  .step("unindexed", (db) => unindexName(db, names, shelterId))
  .step("unplaced", (db) =>
    db
      .delete(shelterPlaces)
      .where(and(eq(shelterPlaces.id, shelterId), sql`changes() = 1`))
      .prepare(),
  )
  .event({ type: "shelter.deleted", data: shelterShape, where: thisShelter });

/** Deletes the shelter if it is still at `version` and no live animal lives there: whether it did. */
export const deleteShelter = deletionBy(deletion);
