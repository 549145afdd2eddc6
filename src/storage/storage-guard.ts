import { type Database, runOne, type Statement } from "../db/database.ts";
import { ApiError, messages } from "../errors.ts";
import { describeError, log } from "../logging.ts";

type StorageName = "D1" | "KV" | "Durable Object" | "Queue" | "R2";

/** Long enough for a healthy call anywhere, short enough that a client's retry beats the hang. */
export const STORAGE_TIMEOUT_MS = 5_000;
const RETRY_AFTER_SECONDS = "2";

/**
 * The work, or a StorageTimeout once it has hung too long. The wait is the
 * runtime's own scheduler rather than setTimeout, whose Node-compatible
 * wrapper cost more than the limiter's own counting in a profile of the hot
 * path; a wait that outlives the answer ends with the request.
 */
function withTimeout<T>(work: Promise<T>, store: StorageName): Promise<T> {
  const timeout = scheduler.wait(STORAGE_TIMEOUT_MS).then((): never => {
    const message = `${store} did not answer within ${STORAGE_TIMEOUT_MS} ms`;
    throw Object.assign(new Error(message), { name: "StorageTimeout" });
  });
  return Promise.race([work, timeout]);
}

/**
 * Runs one call to a storage binding. A failure or a hang becomes 503
 * `unavailable` with Retry-After; what went wrong is logged, never sent.
 * ApiErrors raised inside (decisions, not faults) pass through unchanged.
 */
export async function guardStorage<T>(store: StorageName, call: () => Promise<T>): Promise<T> {
  try {
    return await withTimeout(call(), store);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    log("error", "storage call failed", { store, error: describeError(error) });
    throw new ApiError("unavailable", messages.unavailable, {
      headers: { "Retry-After": RETRY_AFTER_SECONDS },
    });
  }
}

/** The first row one statement reads, if it reads any; a failing D1 is a 503, as for every read. */
export async function firstRow<Row>(
  db: Database,
  statement: Statement<Row[]>,
  values: Record<string, unknown>,
): Promise<Row | undefined> {
  const [row] = await guardStorage("D1", () => runOne(db, statement, values));
  return row;
}

/**
 * A page read with one row more than its `limit` asked for: the rows to
 * send, and whether another page follows (the extra row says so).
 */
export function cutPage<R>(rows: readonly R[], limit: number): { listed: R[]; hasMore: boolean } {
  return { listed: rows.slice(0, limit), hasMore: rows.length > limit };
}

/**
 * One page one statement reads: it binds `limit` one over the page's size,
 * and the extra row says whether another page follows.
 */
export async function readPage<Row>(
  db: Database,
  statement: Statement<Row[]>,
  values: { limit: number },
): Promise<{ listed: Row[]; hasMore: boolean }> {
  const rows = await guardStorage("D1", () =>
    runOne(db, statement, { ...values, limit: values.limit + 1 }),
  );
  return cutPage(rows, values.limit);
}
