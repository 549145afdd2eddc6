import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import { type Changer, changerValues, ownedByCaller } from "../catalogue/ownership.ts";
import { type Database, type Drizzle, preparedQueries, runValues } from "../db/database.ts";
import { photoUrlsOf } from "../db/photos-table.ts";
import { categories, orders, pets } from "../db/schema.ts";
import { entityTag, type Field, shape, yesNo } from "../db/shape.ts";
import { unmeasuredDistance } from "../shelters/distance.ts";
import { firstRow, guardStorage } from "../storage/storage-guard.ts";
import { type ShelterStanding, shelterStanding } from "./pet-profile.queries.ts";
import type { Pet } from "./pets.schemas.ts";

/** The addresses of the animal's photos, oldest first. */
const photoUrls: Field<SQL.Aliased<string>, string[]> = {
  // Wrapped: a select from one table writes its fields' own columns unqualified.
  select: sql<string>`${photoUrlsOf(pets.id)}`.as("photo_urls"),
  render: (read) => JSON.parse(read) as string[],
  json: sql`json(${photoUrlsOf(pets.id)})`,
  optional: false,
};

/** An animal as the API returns it. */
export const petShape = shape(pets, {
  id: pets.id,
  name: pets.name,
  categoryId: pets.categoryId,
  status: pets.status,
  shelterId: pets.shelterId,
  breed: pets.breed,
  age: pets.age,
  sex: pets.sex,
  size: pets.size,
  goodWithChildren: yesNo(pets.goodWithChildren),
  goodWithDogs: yesNo(pets.goodWithDogs),
  goodWithCats: yesNo(pets.goodWithCats),
  houseTrained: yesNo(pets.houseTrained),
  specialNeeds: yesNo(pets.specialNeeds),
  spayedNeutered: yesNo(pets.spayedNeutered),
  description: pets.description,
  distanceKm: unmeasuredDistance,
  etag: entityTag(pets.version),
  photoUrls,
});

/** Animals not deleted: a deleted animal's row stays as a tombstone that nothing shows. */
export const live = isNull(pets.deletedAt);

const petId = sql.placeholder("id");

/** The live category bound as `categoryId`. */
export const knownCategory = and(
  eq(categories.id, sql.placeholder("categoryId")),
  isNull(categories.deletedAt),
);

/** True when a change keeps the animal's category (binds null), or moves it to a live one. */
export const categoryKnownOrKept = sql<boolean>`(${sql.placeholder("categoryId")} IS NULL OR EXISTS (SELECT 1 FROM ${categories} WHERE ${knownCategory}))`;

/** The animal's placed order, if it has one (a unique index allows at most one). */
const placedOrderOf = sql<
  number | null
>`(SELECT ${orders.id} FROM ${orders} WHERE ${orders.petId} = ${pets.id} AND ${orders.status} = 'placed')`;

/** Each query shape built once per database, so a request only binds values. */
function prepareQueries(db: Drizzle) {
  return {
    find: db
      .select(petShape.columns)
      .from(pets)
      .where(and(eq(pets.id, petId), live))
      .prepare(),
    forChange: db
      .select({
        ...petShape.columns,
        owned: ownedByCaller(pets.accountId).mapWith(Boolean).as("owned"),
        // Wrapped: a select from one table writes its fields' own columns unqualified.
        placedOrder: sql<number | null>`${placedOrderOf}`.as("placed_order"),
        // The category a change would move it to, when it names one.
        categoryKnown: sql<boolean>`${categoryKnownOrKept}`.mapWith(Boolean).as("category_known"),
        // What the shelter a change would move it to (if it names one) is to the caller.
        shelter: sql<ShelterStanding | null>`${shelterStanding}`.as("shelter_standing"),
      })
      .from(pets)
      .where(and(eq(pets.id, petId), live))
      .prepare(),
  };
}

/** The animals' prepared reads by id, made once per database. */
const petQueries = preparedQueries(prepareQueries);

/** The live animal with this id, if there is one. */
export async function findPet(db: Database, id: number): Promise<Pet | undefined> {
  const [row] = await guardStorage("D1", () => runValues(db, petQueries(db).find, { id }));
  return row && petShape.fromValues(row);
}

/** An animal as a change finds it, with what decides whether the change may happen. */
export interface PetForChange {
  pet: Pet;
  /** Its version: what its etag names, and what the change's batch is conditional on. */
  version: number;
  /** Whether it belongs to the caller's account. */
  owned: boolean;
  /** Its placed order, which owns its status while it stands. */
  placedOrder: number | null;
  /** Whether the category the change names (if any) exists. */
  categoryKnown: boolean;
  /** What the shelter the change names is to the caller; null when it names none. */
  shelter: ShelterStanding | null;
}

/** What a change names that its read checks: a category and a shelter to move the animal to. */
interface Named {
  categoryId: number | undefined;
  shelterId: number | null | undefined;
}

/**
 * The live animal a change is about, read where changes are made, with its
 * owner, its placed order, whether `categoryId` names a category and what
 * the shelter `shelterId` names is to the caller; undefined when there is no
 * such animal.
 */
export async function readForChange(
  db: Database,
  { id, categoryId, shelterId, changer }: { id: number; changer: Changer } & Named,
): Promise<PetForChange | undefined> {
  const values = {
    id,
    categoryId: categoryId ?? null,
    shelterId: shelterId ?? null,
    ...changerValues(changer),
  };
  const row = await firstRow(db, petQueries(db).forChange, values);
  if (!row) return undefined;
  const { owned, placedOrder, categoryKnown, shelter, ...columns } = row;
  // Read, the etag field is the version number it renders.
  return {
    pet: petShape.render(columns),
    version: columns.etag,
    owned,
    placedOrder,
    categoryKnown,
    shelter,
  };
}
