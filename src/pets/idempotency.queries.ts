import { and, eq, gt, lt, lte, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { idempotencyKeys, pets } from "../db/schema.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import { petColumns, petValues } from "./pets.queries.ts";
import type { NewPet, Pet } from "./pets.schemas.ts";

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface IdempotentCreate {
  apiKeyHash: string;
  idempotencyKey: string;
  /** Fingerprint of the request body: the same key with another body is refused. */
  requestHash: string;
  now: number;
}

export type IdempotentOutcome =
  | { kind: "created"; pet: Pet }
  | { kind: "replayed"; pet: Pet }
  | { kind: "reused" };

const sameClaim = (claim: IdempotentCreate) =>
  and(
    eq(idempotencyKeys.apiKeyHash, claim.apiKeyHash),
    eq(idempotencyKeys.idempotencyKey, claim.idempotencyKey),
  );

function isUniqueViolation(error: unknown): boolean {
  const causes = [error, error instanceof Error ? error.cause : undefined];
  return causes.some(
    (cause) => cause instanceof Error && /UNIQUE constraint failed/.test(cause.message),
  );
}

/** The animal an earlier request with this key made, if it is still within the window. */
async function earlierCreation(db: Database, claim: IdempotentCreate) {
  return guardStorage("D1", () =>
    db
      .select({ requestHash: idempotencyKeys.requestHash, pet: petColumns })
      .from(idempotencyKeys)
      .innerJoin(pets, eq(pets.id, idempotencyKeys.petId))
      .where(
        and(
          sameClaim(claim),
          gt(idempotencyKeys.createdAt, new Date(claim.now - IDEMPOTENCY_WINDOW_MS)),
        ),
      )
      .get(),
  );
}

/** The batch: drop an expired record for the key, add the animal, record the key. */
async function createRecorded(
  db: Database,
  newPet: NewPet,
  claim: IdempotentCreate,
): Promise<Pet | null> {
  try {
    const [, [pet]] = await db.batch([
      db
        .delete(idempotencyKeys)
        .where(
          and(
            sameClaim(claim),
            lte(idempotencyKeys.createdAt, new Date(claim.now - IDEMPOTENCY_WINDOW_MS)),
          ),
        ),
      db.insert(pets).values(petValues(newPet)).returning(petColumns),
      db.insert(idempotencyKeys).values({
        apiKeyHash: claim.apiKeyHash,
        idempotencyKey: claim.idempotencyKey,
        requestHash: claim.requestHash,
        petId: sql`last_insert_rowid()`,
        createdAt: new Date(claim.now),
      }),
    ]);
    if (!pet) throw new Error("insert returned no row");
    return pet;
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/**
 * Creates the animal and records the key in one atomic batch. When a
 * concurrent or earlier request already holds the key, the primary key
 * refuses the batch whole and the earlier animal is replayed (or the key
 * refused if the body differs): exactly one animal per key, however retries
 * interleave.
 */
export async function insertPetOnce(
  db: Database,
  newPet: NewPet,
  claim: IdempotentCreate,
): Promise<IdempotentOutcome> {
  const pet = await guardStorage("D1", () => createRecorded(db, newPet, claim));
  if (pet) return { kind: "created", pet };
  const winner = await earlierCreation(db, claim);
  if (!winner) throw new Error("idempotency record vanished after a conflict");
  return replayOrRefuse(winner, claim);
}

function replayOrRefuse(
  earlier: { requestHash: string; pet: Pet },
  claim: IdempotentCreate,
): IdempotentOutcome {
  return earlier.requestHash === claim.requestHash
    ? { kind: "replayed", pet: earlier.pet }
    : { kind: "reused" };
}

/** Removes records older than the replay window; run hourly by the cron trigger. */
export async function deleteExpiredIdempotencyKeys(db: Database, now: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    db
      .delete(idempotencyKeys)
      .where(lt(idempotencyKeys.createdAt, new Date(now - IDEMPOTENCY_WINDOW_MS))),
  );
  return result.meta.changes;
}
