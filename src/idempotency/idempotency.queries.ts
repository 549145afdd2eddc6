import { and, eq, gt, lt, lte, type SQL, sql } from "drizzle-orm";
import {
  type BatchResults,
  type Database,
  millis,
  preparedQueries,
  runBatch,
  runOne,
  type Statements,
} from "../db/database.ts";
import { idempotencyRecords } from "../db/schema.ts";
import { guardStorage } from "../storage/storage-guard.ts";

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** What a request with an Idempotency-Key claims: the key, scoped to the API key that sent it. */
export interface IdempotencyClaim {
  apiKeyHash: string;
  idempotencyKey: string;
  /** The operationId: one key used on two operations is refused. */
  operation: string;
  /** Fingerprint of the request body: the same key with another body is refused. */
  requestHash: string;
  now: number;
}

/** A response as it was sent: its status and its JSON body. */
export interface StoredResponse {
  status: number;
  body: unknown;
}

/** This request made its change, without a key: `body` is what it answers. */
export interface Made<T> {
  kind: "made";
  body: T;
}

/** This request made its change; the response it sends is the one stored with its key. */
export interface Stored {
  kind: "stored";
  response: StoredResponse;
}

/** An earlier request with this key and body made the change: its response, again. */
export interface Replayed {
  kind: "replayed";
  response: StoredResponse;
}

/** The key was used with another body or on another operation. */
export interface Reused {
  kind: "reused";
}

const sameKey = and(
  eq(idempotencyRecords.apiKeyHash, sql.placeholder("apiKeyHash")),
  eq(idempotencyRecords.idempotencyKey, sql.placeholder("idempotencyKey")),
);

/** The values a keyed batch binds for its claim, beside the change's own. */
function claimValues(claim: IdempotencyClaim) {
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
 * A change's statements, made to happen at most once per key: the claim
 * first, then the change, then the settlement, then the change's events
 * and reads. Nobody ever sees a claim without its response: the batch
 * either stores the response or gives the claim back before it commits.
 * `response` is the status the change answers with and its body, rendered
 * in SQL from the row the change inserted (`last_insert_rowid()`).
 */
export function keyedStatements<
  Change extends Statements,
  Events extends Statements,
  Reads extends Statements,
>(
  db: Database,
  parts: { change: Change; events: Events; reads: Reads },
  response: { status: number; body: SQL<string> },
) {
  return {
    /** Forgets an expired record of the key, then claims it: a live record fails the whole batch. */
    forgetExpired: db
      .delete(idempotencyRecords)
      .where(and(sameKey, lte(idempotencyRecords.createdAt, millis("expiredBefore"))))
      .prepare(),
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
    ...parts.change,
    /** The change made nothing (`changes()` counts its last statement): the claim is given back, so a retry runs afresh. */
    giveBack: db.delete(idempotencyRecords).where(and(sameKey, sql`changes() = 0`)).prepare(),
    /** Stores the response while the claim stands: `changes()` is then 1 exactly when the change happened. */
    store: db
      .update(idempotencyRecords)
      .set({ responseStatus: response.status, responseBody: response.body })
      .where(sameKey)
      .prepare(),
    ...parts.events,
    ...parts.reads,
    stored: db
      .select({ status: idempotencyRecords.responseStatus, body: idempotencyRecords.responseBody })
      .from(idempotencyRecords)
      .where(sameKey)
      .prepare(),
  };
}

/** The response a keyed change stored: its own batch read it back as `stored`. */
export function storedIn(rows: { status: number | null; body: string | null }[]): Stored {
  const [row] = rows;
  if (!row) throw new Error("a keyed change committed without its idempotency record");
  return { kind: "stored", response: responseOf(row) };
}

/** The response a record holds (a committed record always holds one). */
export function responseOf(row: { status: number | null; body: string | null }): StoredResponse {
  if (row.status === null || row.body === null) {
    throw new Error("an idempotency record was committed without its response");
  }
  return { status: row.status, body: JSON.parse(row.body) };
}

function isClaimConflict(error: unknown): boolean {
  const causes = [error, error instanceof Error ? error.cause : undefined];
  return causes.some(
    (cause) =>
      cause instanceof Error &&
      /UNIQUE constraint failed: idempotency_records\./.test(cause.message),
  );
}

/** The statements of keys on their own, prepared once per database. */
const recordQueries = preparedQueries((db: Database) => ({
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
 * Runs a keyed batch (one built with `keyedStatements`), binding the
 * change's `values` and the claim's, and reads its results with `read`.
 * When a concurrent or earlier request already holds
 * the key, its claim fails this batch whole and that request's response is
 * replayed instead, or the key refused if it was used for another request:
 * one change per key, however retries interleave, and never a 409 for a
 * retry. Only the batch is a storage call; a fault in `read` is a defect,
 * not a 503.
 */
export async function runOnce<S extends Statements, T>(
  db: Database,
  claim: IdempotencyClaim,
  statements: S,
  values: Record<string, unknown>,
  read: (results: BatchResults<S>) => T,
): Promise<T | Replayed | Reused> {
  const bound = { ...values, ...claimValues(claim) };
  // The record that failed the claim can expire and be swept before it is
  // read; the key is then free, and a second run claims it.
  for (let attempt = 1; attempt <= 2; attempt++) {
    const ran = await guardStorage("D1", async () => {
      try {
        return { results: await runBatch(db, statements, bound) };
      } catch (error) {
        if (isClaimConflict(error)) return undefined;
        throw error;
      }
    });
    if (ran) return read(ran.results);
    const [earlier] = await guardStorage("D1", () => runOne(db, recordQueries(db).earlier, bound));
    if (earlier) {
      if (earlier.operation !== claim.operation || earlier.requestHash !== claim.requestHash) {
        return { kind: "reused" };
      }
      return { kind: "replayed", response: responseOf(earlier) };
    }
  }
  throw new Error("an idempotency claim failed twice on a record nobody holds");
}

/** Removes records older than the replay window; run by the scheduled job. */
export async function deleteExpiredIdempotencyRecords(db: Database, now: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    runOne(db, recordQueries(db).deleteExpired, { expiredBefore: now - IDEMPOTENCY_WINDOW_MS }),
  );
  return result.meta.changes;
}
