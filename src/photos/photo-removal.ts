import type { Database } from "../db/database.ts";
import { describeError, log } from "../logging.ts";
import { MAX_DELETES_PER_CALL, type PhotoStore } from "./photo-store.ts";
import { abandonPending, doomedPhotos, forgetPhotos } from "./photos.queries.ts";

/**
 * How photos go: a change marks their rows `deleting` (in the batch that
 * takes them from their animal), then their objects are deleted, then
 * their rows. Whatever a failure leaves marked, the scheduled job deletes,
 * so an object outlives its photo only until the job's next run; a
 * confirmed photo's object is never deleted.
 */

/** What removing photos works with: their records and their bytes. */
export interface PhotoStores {
  db: Database;
  photos: PhotoStore;
}

/** A day: an upload still pending after it has failed, and its object goes. */
const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

/** Deletes the objects of photos marked `deleting`, then their rows. */
async function removePhotos({ db, photos }: PhotoStores, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await photos.delete(ids);
  await forgetPhotos(db, ids);
}

/**
 * After a change marked photos `deleting`: deletes them now, so their
 * addresses are 404 by the time the change is answered. A store that fails
 * leaves them to the scheduled job; the change stands either way.
 */
export async function removeMarkedPhotos(
  stores: PhotoStores,
  ids: readonly string[],
): Promise<void> {
  try {
    await removePhotos(stores, ids);
  } catch (error) {
    log("warn", "photos left for the scheduled job to delete", { error: describeError(error) });
  }
}

/**
 * After an upload failed or was refused past its pending row: gives it up,
 * deleting its object if one was written. A photo that was confirmed after
 * all (a batch whose answer was lost) is left alone.
 */
export async function abandonUpload(stores: PhotoStores, id: string): Promise<void> {
  try {
    if (await abandonPending(stores.db, id)) await removePhotos(stores, [id]);
  } catch (error) {
    log("warn", "an abandoned upload is left for the scheduled job", {
      error: describeError(error),
    });
  }
}

/**
 * The scheduled job's part: gives up uploads pending for a day, then
 * deletes up to 1,000 photos marked `deleting` (objects, then rows), from
 * their rows alone, never by listing the bucket. Returns how many went.
 */
export async function sweepPhotos(stores: PhotoStores, now: number): Promise<number> {
  const ids = await doomedPhotos(stores.db, {
    before: now - ABANDONED_AFTER_MS,
    limit: MAX_DELETES_PER_CALL,
  });
  await removePhotos(stores, ids);
  return ids.length;
}
