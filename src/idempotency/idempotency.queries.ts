import { and, eq, gt, isNull, lt, lte, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
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

const sameKey = (claim: IdempotencyClaim) =>
  and(
    eq(idempotencyRecords.apiKeyHash, claim.apiKeyHash),
    eq(idempotencyRecords.idempotencyKey, claim.idempotencyKey),
  );

/**
 * The statements that make a keyed create happen at most once, for the
 * create's own D1 batch (one transaction): `claim` first, `settle` right
 * after the statement that inserts the new row, then whatever the create
 * reads back. Nobody ever sees a claim without its response: the batch
 * either stores the response or removes the claim before it commits.
 */
export function idempotencyStatements(db: Database, claim: IdempotencyClaim) {
  const key = sameKey(claim);
  return {
    /** Forgets an expired record of the key, then claims it: a live record fails the whole batch. */
    claim: [
      db
        .delete(idempotencyRecords)
        .where(
          and(key, lte(idempotencyRecords.createdAt, new Date(claim.now - IDEMPOTENCY_WINDOW_MS))),
        ),
      db.insert(idempotencyRecords).values({
        apiKeyHash: claim.apiKeyHash,
        idempotencyKey: claim.idempotencyKey,
        operation: claim.operation,
        requestHash: claim.requestHash,
        createdAt: new Date(claim.now),
      }),
    ] as const,
    /**
     * When the statement before added or changed a row (`changes()` is its
     * count), stores the response: `body` as the request sends it, with the
     * new row's id unless the body names its own. When it touched none, the
     * request was refused and changed nothing, so the claim is given back and
     * a retry runs afresh. Then reads the stored response.
     */
    settle: (status: number, body: Record<string, unknown>) =>
      [
        db
          .update(idempotencyRecords)
          .set({
            responseStatus: status,
            // The id comes first, as in every resource the API returns.
            responseBody:
              typeof body.id === "number"
                ? JSON.stringify(body)
                : sql`json_set(${JSON.stringify({ id: 0, ...body })}, '$.id', last_insert_rowid())`,
          })
          .where(and(key, sql`changes() = 1`)),
        db.delete(idempotencyRecords).where(and(key, isNull(idempotencyRecords.responseStatus))),
        db
          .select({
            status: idempotencyRecords.responseStatus,
            body: idempotencyRecords.responseBody,
          })
          .from(idempotencyRecords)
          .where(key),
      ] as const,
  };
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

/** The record an earlier request holds for this key, if it is still within the window. */
function earlierRecord(db: Database, claim: IdempotencyClaim) {
  return guardStorage("D1", () =>
    db
      .select({
        operation: idempotencyRecords.operation,
        requestHash: idempotencyRecords.requestHash,
        status: idempotencyRecords.responseStatus,
        body: idempotencyRecords.responseBody,
      })
      .from(idempotencyRecords)
      .where(
        and(
          sameKey(claim),
          gt(idempotencyRecords.createdAt, new Date(claim.now - IDEMPOTENCY_WINDOW_MS)),
        ),
      )
      .get(),
  );
}

/**
 * Runs a keyed batch (one built with `idempotencyStatements`) and reads its
 * results with `read`. When a concurrent or earlier request already holds
 * the key, its claim fails this batch whole and that request's response is
 * replayed instead, or the key refused if it was used for another request:
 * one change per key, however retries interleave, and never a 409 for a
 * retry. Only the batch is a storage call; a fault in `read` is a defect,
 * not a 503.
 */
export async function runOnce<R, T>(
  db: Database,
  claim: IdempotencyClaim,
  batch: () => Promise<R>,
  read: (results: R) => T,
): Promise<T | Replayed | Reused> {
  // The record that failed the claim can expire and be swept before it is
  // read; the key is then free, and a second run claims it.
  for (let attempt = 1; attempt <= 2; attempt++) {
    const ran = await guardStorage("D1", async () => {
      try {
        return { results: await batch() };
      } catch (error) {
        if (isClaimConflict(error)) return undefined;
        throw error;
      }
    });
    if (ran) return read(ran.results);
    const earlier = await earlierRecord(db, claim);
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
    db
      .delete(idempotencyRecords)
      .where(lt(idempotencyRecords.createdAt, new Date(now - IDEMPOTENCY_WINDOW_MS))),
  );
  return result.meta.changes;
}
