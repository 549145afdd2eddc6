import { and, asc, eq, gt, sql } from "drizzle-orm";
import { boundStatement, type Database, firstRow, preparedQueries } from "../db/database.ts";
import { pets } from "../db/schema.ts";
import {
  type ChangeEvents,
  eventsWaitingIn,
  eventsWaitingProbe,
} from "../events/events-waiting.ts";
import {
  type IdempotencyClaim,
  idempotencyStatements,
  type Replayed,
  type Reused,
  responseOf,
  runOnce,
  type Stored,
} from "../idempotency/idempotency.queries.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { NewPet, Pet, PetStatus } from "./pets.schemas.ts";

export const petColumns = {
  id: pets.id,
  name: pets.name,
  categoryId: pets.categoryId,
  status: pets.status,
};

/** Each query shape built once per database, so a request only binds values. */
function prepareQueries(db: Database) {
  const page = (byStatus: boolean) =>
    db
      .select(petColumns)
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
      .select(petColumns)
      .from(pets)
      .where(eq(pets.id, sql.placeholder("id")))
      .prepare(),
    insert: boundStatement(
      db,
      db
        .insert(pets)
        .values({
          name: sql.placeholder("name"),
          categoryId: sql.placeholder("categoryId"),
          status: sql.placeholder("status"),
          createdAt: sql.placeholder("createdAt"),
        })
        .returning(petColumns),
    ),
    eventsWaiting: boundStatement(db, eventsWaitingProbe(db)),
  };
}

/** An animal as D1 returns the insert's row, by column name. */
interface PetRow {
  id: number;
  name: string;
  category_id: number;
  status: PetStatus;
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
    query.status ? pageByStatus.all(values) : page.all(values),
  );
  return { pets: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}

export function findPet(db: Database, id: number): Promise<Pet | undefined> {
  return guardStorage("D1", () => petQueries(db).find.get({ id }));
}

function petValues(newPet: NewPet) {
  return {
    name: newPet.name,
    categoryId: newPet.categoryId,
    status: newPet.status ?? "available",
  };
}

export async function insertPet(
  db: Database,
  newPet: NewPet,
): Promise<{ pet: Pet } & ChangeEvents> {
  const { insert, eventsWaiting } = petQueries(db);
  const [inserted, probe] = await guardStorage("D1", () =>
    db.$client.batch([insert({ ...petValues(newPet), createdAt: new Date() }), eventsWaiting({})]),
  );
  const row = firstRow<PetRow>(inserted);
  if (!row) throw new Error("insert returned no row");
  const pet = { id: row.id, name: row.name, categoryId: row.category_id, status: row.status };
  return { pet, eventsWaiting: eventsWaitingIn(probe) };
}

/**
 * Adds the animal and stores the response with the Idempotency-Key in one
 * batch: exactly one animal per key, and a replay answers as the first reply
 * did even after the animal has changed.
 */
export function insertPetOnce(
  db: Database,
  newPet: NewPet,
  claim: IdempotencyClaim,
): Promise<(Stored & ChangeEvents) | Replayed | Reused> {
  const keyed = idempotencyStatements(db, claim);
  const values = petValues(newPet);
  return runOnce(
    db,
    claim,
    () =>
      db.batch([
        ...keyed.claim,
        db.insert(pets).values({ ...values, createdAt: new Date(claim.now) }),
        ...keyed.settle(201, values),
        eventsWaitingProbe(db),
      ]),
    ([, , , , , [stored], probe]) => {
      if (!stored) throw new Error("the animal's insert added no row");
      return {
        kind: "stored",
        response: responseOf(stored),
        eventsWaiting: probe.length > 0,
      } as const;
    },
  );
}
