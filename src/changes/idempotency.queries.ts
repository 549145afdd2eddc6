import { and, eq, gt, lt, lte, type SQL, sql } from "drizzle-orm";
import {
  atPrimary,
  type Database,
  type Drizzle,
  millis,
  preparedQueries,
  runOne,
} from "../db/database.ts";
import { idempotencyRecords } from "../db/schema.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { Claim, Replayed, Reused, StoredResponse } from "./outcomes.ts";

/**
 * The records of Idempotency-Keys: the statements a keyed change adds to its
 * own batch, and the reads of an earlier request's record.
 */

const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

const sameKey = and(
  eq(idempotencyRecords.apiKeyHash, sql.placeholder("apiKeyHash")),
  eq(idempotencyRecords.idempotencyKey, sql.placeholder("idempotencyKey")),
);

/** The values a keyed batch binds for its claim, beside the change's own. */
export function claimValues(claim: Claim) {
  return {
    apiKeyHash: claim.apiKeyHash,
    idempotencyKey: claim.idempotencyKey,
    operation: claim.operation,
    requestHash: claim.requestHash,
    now: claim.now,
    expiredBefore: claim.now - IDEMPOTENCY_WINDOW_MS,
  };
}

/**
 * The statements that make a change happen at most once per key, for a
 * change whose reply is `reply`: its status, and its body rendered in SQL
 * from what the change wrote. Nobody ever sees a claim without its
 * response: the batch either stores the response or gives the claim back
 * before it commits.
 */
export function keyStatements(db: Drizzle, reply: { status: number; body: SQL<string> }) {
  return {
    /** Forgets an expired record of the key, so the claim after it can take the key. */
    forgetExpired: db
      .delete(idempotencyRecords)
      .where(and(sameKey, lte(idempotencyRecords.createdAt, millis("expiredBefore"))))
      .prepare(),
    /** Claims the key: a live record fails the whole batch. */
    claim: db
      .insert(idempotencyRecords)
      .values({
        apiKeyHash: sql.placeholder("apiKeyHash"),
        idempotencyKey: sql.placeholder("idempotencyKey"),
        operation: sql.placeholder("operation"),
        requestHash: sql.placeholder("requestHash"),
        createdAt: millis("now"),
      })
      .prepare(),
    /** The change made nothing (`changes()` counts its last statement): the claim is given back, so a retry runs afresh. */
    giveBack: db.delete(idempotencyRecords).where(and(sameKey, sql`changes() = 0`)).prepare(),
    /** Stores the reply while the claim stands: `changes()` is then 1 exactly when the change happened. */
    store: db
      .update(idempotencyRecords)
      .set({ responseStatus: reply.status, responseBody: reply.body })
      .where(sameKey)
      .prepare(),
    /** The reply stored: none when the claim was given back. */
    stored: db
      .select({ status: idempotencyRecords.responseStatus, body: idempotencyRecords.responseBody })
      .from(idempotencyRecords)
      .where(sameKey)
      .prepare(),
  };
}

/** The response a record holds (a committed record always holds one). */
export function responseOf(row: { status: number | null; body: string | null }): StoredResponse {
  if (row.status === null || row.body === null) {
    throw new Error("an idempotency record was committed without its response");
  }
  return { status: row.status, body: JSON.parse(row.body) };
}

/** True when a batch failed because another request holds its key. */
export function isClaimConflict(error: unknown): boolean {
  const causes = [error, error instanceof Error ? error.cause : undefined];
  return causes.some(
    (cause) =>
      cause instanceof Error &&
      /UNIQUE constraint failed: idempotency_records\./.test(cause.message),
  );
}

/** The statements of keys on their own, prepared once per database. */
const recordQueries = preparedQueries((db: Drizzle) => ({
  /** The record an earlier request holds for the key, if it is still within the window. */
  earlier: db
    .select({
      operation: idempotencyRecords.operation,
      requestHash: idempotencyRecords.requestHash,
      status: idempotencyRecords.responseStatus,
      body: idempotencyRecords.responseBody,
    })
    .from(idempotencyRecords)
    .where(and(sameKey, gt(idempotencyRecords.createdAt, millis("expiredBefore"))))
    .prepare(),
  deleteExpired: db
    .delete(idempotencyRecords)
    .where(lt(idempotencyRecords.createdAt, millis("expiredBefore")))
    .prepare(),
}));

/**
 * What the request making `claim` is answered when an earlier request holds
 * its key (within the window): that request's reply again (recorded as
 * replayed where `db` keeps its changes), or `reused` when the key was used
 * with another body or on another operation; undefined while nobody holds it.
 */
export async function earlierOutcome(
  db: Database,
  claim: Claim,
): Promise<Replayed | Reused | undefined> {
  // At the primary: the record that won the claim may not have reached a replica yet.
  const [earlier] = await guardStorage("D1", () =>
    runOne(atPrimary(db), recordQueries(db).earlier, claimValues(claim)),
  );
  if (!earlier) return undefined;
  if (earlier.operation !== claim.operation || earlier.requestHash !== claim.requestHash) {
    return { kind: "reused" };
  }
  if (db.changes) db.changes.replayed = true;
  return { kind: "replayed", response: responseOf(earlier) };
}

/** Removes records older than the replay window; run by the scheduled job. */
export async function deleteExpiredIdempotencyRecords(db: Database, now: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    runOne(db, recordQueries(db).deleteExpired, { expiredBefore: now - IDEMPOTENCY_WINDOW_MS }),
  );
  return result.meta.changes;
}
