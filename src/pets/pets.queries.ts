import { and, asc, eq, gt, sql } from "drizzle-orm";
import { change } from "../changes/change.ts";
import type { Claim, Outcome } from "../changes/outcomes.ts";
import { type Database, type Drizzle, millis, preparedQueries, runOne } from "../db/database.ts";
import { pets } from "../db/schema.ts";
import { shape } from "../db/shape.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { NewPet, Pet, PetStatus } from "./pets.schemas.ts";

/** An animal as the API returns it. */
export const petShape = shape(pets, {
  id: pets.id,
  name: pets.name,
  categoryId: pets.categoryId,
  status: pets.status,
});

/** The animal the batch just inserted. */
const inserted = eq(pets.id, sql`last_insert_rowid()`);

/** Adding an animal: the insert, then its event; a keyed create stores the animal as its reply. */
const creation = change()
  .step("pet", (db) =>
    db
      .insert(pets)
      .values({
        name: sql.placeholder("name"),
        categoryId: sql.placeholder("categoryId"),
        status: sql.placeholder("status"),
        createdAt: millis("now"),
      })
      .returning(petShape.columns)
      .prepare(),
  )
  .event({ type: "pet.created", data: petShape, where: inserted })
  .reply(201, petShape, inserted);

/** Each query shape built once per database, so a request only binds values. */
function prepareQueries(db: Drizzle) {
  const page = (byStatus: boolean) =>
    db
      .select(petShape.columns)
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
      .select(petShape.columns)
      .from(pets)
      .where(eq(pets.id, sql.placeholder("id")))
      .prepare(),
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
  return {
    pets: rows.slice(0, query.limit).map(petShape.render),
    hasMore: rows.length > query.limit,
  };
}

export async function findPet(db: Database, id: number): Promise<Pet | undefined> {
  const [row] = await guardStorage("D1", () => runOne(db, petQueries(db).find, { id }));
  return row && petShape.render(row);
}

/**
 * Adds the animal and its `pet.created` event in one batch. With a claim,
 * the response is stored with the Idempotency-Key in the same batch: exactly
 * one animal per key, and a replay answers as the first reply did even
 * after the animal has changed.
 */
export function createPet(
  db: Database,
  newPet: NewPet,
  now: number,
  claim: Claim | undefined,
): Promise<Outcome<Pet>> {
  const values = {
    name: newPet.name,
    categoryId: newPet.categoryId,
    status: newPet.status ?? "available",
    now,
  };
  return creation.answer(db, {
    values,
    claim,
    made: ({ pet: [row] }) => row && petShape.render(row),
  });
}
