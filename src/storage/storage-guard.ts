import { ApiError, messages } from "../errors.ts";
import { describeError, log } from "../logging.ts";

export type StorageName = "D1" | "KV" | "Durable Object" | "Queue";

/** Long enough for a healthy call anywhere, short enough that a client's retry beats the hang. */
export const STORAGE_TIMEOUT_MS = 5_000;
const RETRY_AFTER_SECONDS = "2";

class StorageTimeout extends Error {
  constructor(store: StorageName) {
    super(`${store} did not answer within ${STORAGE_TIMEOUT_MS} ms`);
    this.name = "StorageTimeout";
  }
}

function withTimeout<T>(work: Promise<T>, store: StorageName): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StorageTimeout(store)), STORAGE_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => {
    if (timer !== undefined) clearTimeout(timer);
  });
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
