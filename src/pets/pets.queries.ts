import { and, asc, eq, gt } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { pets } from "../db/schema.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { NewPet, Pet, PetStatus } from "./pets.schemas.ts";

export const petColumns = {
  id: pets.id,
  name: pets.name,
  categoryId: pets.categoryId,
  status: pets.status,
};

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
  const rows = await guardStorage("D1", () =>
    db
      .select(petColumns)
      .from(pets)
      .where(
        and(gt(pets.id, query.afterId), query.status ? eq(pets.status, query.status) : undefined),
      )
      .orderBy(asc(pets.id))
      .limit(query.limit + 1),
  );
  return { pets: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}

export function findPet(db: Database, id: number): Promise<Pet | undefined> {
  return guardStorage("D1", () => db.select(petColumns).from(pets).where(eq(pets.id, id)).get());
}

export function petValues(newPet: NewPet) {
  return {
    name: newPet.name,
    categoryId: newPet.categoryId,
    status: newPet.status ?? "available",
  };
}

export async function insertPet(db: Database, newPet: NewPet): Promise<Pet> {
  const [pet] = await guardStorage("D1", () =>
    db.insert(pets).values(petValues(newPet)).returning(petColumns),
  );
  if (!pet) throw new Error("insert returned no row");
  return pet;
}
