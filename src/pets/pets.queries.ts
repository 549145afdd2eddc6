import { and, asc, eq, gt, sql } from "drizzle-orm";
import {
  type Database,
  insertedJson,
  jsonObject,
  millis,
  preparedQueries,
  runBatch,
  runOne,
} from "../db/database.ts";
import { pets } from "../db/schema.ts";
import {
  type ChangeEvents,
  eventStatement,
  eventsWaitingStatement,
  newEventId,
  settleUnwantedStatement,
} from "../events/outbox.ts";
import {
  type IdempotencyClaim,
  keyedStatements,
  type Made,
  type Replayed,
  type Reused,
  runOnce,
  type Stored,
  storedIn,
} from "../idempotency/idempotency.queries.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { NewPet, Pet, PetStatus } from "./pets.schemas.ts";

/** An animal as the API returns it: the fields every read selects and SQL renders as JSON. */
export const petFields = {
  id: pets.id,
  name: pets.name,
  categoryId: pets.categoryId,
  status: pets.status,
};

/** A create's statements: the insert, its event, then whether events wait. */
function createStatements(db: Database) {
  return {
    change: {
      pet: db
        .insert(pets)
        .values({
          name: sql.placeholder("name"),
          categoryId: sql.placeholder("categoryId"),
          status: sql.placeholder("status"),
          createdAt: millis("now"),
        })
        .returning(petFields)
        .prepare(),
    },
    events: {
      petCreated: eventStatement(db, {
        idName: "eventId",
        type: "pet.created",
        accountId: null,
        data: jsonObject(petFields),
        previousStatus: null,
        from: pets,
        where: eq(pets.id, sql`last_insert_rowid()`),
      }),
      settled: settleUnwantedStatement(db, ["eventId"]),
    },
    reads: { eventsWaiting: eventsWaitingStatement(db) },
  };
}

/** Each query shape built once per database, so a request only binds values. */
function prepareQueries(db: Database) {
  const create = createStatements(db);
  const page = (byStatus: boolean) =>
    db
      .select(petFields)
      .from(pets)
      .where(
        and(
          gt(pets.id, sql.placeholder("afterId")),
          byStatus ? eq(pets.status, sql.placeholder("status")) : undefined,
        ),
      )
      .orderBy(asc(pets.id))
      .limit(sql.placeholder("limit"))
      .prepare();
  return {
    page: page(false),
    pageByStatus: page(true),
    find: db
      .select(petFields)
      .from(pets)
      .where(eq(pets.id, sql.placeholder("id")))
      .prepare(),
    create: { ...create.change, ...create.events, ...create.reads },
    createOnce: keyedStatements(db, create, {
      status: 201,
      body: insertedJson(pets, pets.id, petFields),
    }),
  };
}

/** The animals' prepared queries for a database (exported so a test can read their query plans). */
export const petQueries = preparedQueries(prepareQueries);

export interface PetPageQuery {
  limit: number;
  status: PetStatus | undefined;
  afterId: number;
}

export interface PetPage {
  pets: Pet[];
  hasMore: boolean;
}

/** One page in ascending id order; one extra row tells whether another page follows. */
export async function listPets(db: Database, query: PetPageQuery): Promise<PetPage> {
  const { page, pageByStatus } = petQueries(db);
  const values = { afterId: query.afterId, status: query.status, limit: query.limit + 1 };
  const rows = await guardStorage("D1", () =>
    runOne(db, query.status ? pageByStatus : page, values),
  );
  return { pets: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}

export async function findPet(db: Database, id: number): Promise<Pet | undefined> {
  const [pet] = await guardStorage("D1", () => runOne(db, petQueries(db).find, { id }));
  return pet;
}

/**
 * Adds the animal and its `pet.created` event in one batch. With a claim,
 * the response is stored with the Idempotency-Key in the same batch: exactly
 * one animal per key, and a replay answers as the first reply did even
 * after the animal has changed.
 */
export async function createPet(
  db: Database,
  newPet: NewPet,
  now: number,
  claim: IdempotencyClaim | undefined,
): Promise<((Made<Pet> | Stored) & ChangeEvents) | Replayed | Reused> {
  const { create, createOnce } = petQueries(db);
  const values = {
    name: newPet.name,
    categoryId: newPet.categoryId,
    status: newPet.status ?? "available",
    now,
    eventId: newEventId(),
  };
  if (claim === undefined) {
    const done = await guardStorage("D1", () => runBatch(db, create, values));
    const [pet] = done.pet;
    if (!pet) throw new Error("the animal's insert returned no row");
    return { kind: "made", body: pet, eventsWaiting: done.eventsWaiting.length > 0 };
  }
  return runOnce(db, claim, createOnce, values, (done) => ({
    ...storedIn(done.stored),
    eventsWaiting: done.eventsWaiting.length > 0,
  }));
}
