import { PHOTOS_PATH } from "../api/public-paths.ts";
import type { Changer } from "../catalogue/ownership.ts";
import { earlierOutcome } from "../changes/idempotency.queries.ts";
import type { Claim, Outcome } from "../changes/outcomes.ts";
import { confirmPhoto, type Refused, reservePhoto } from "./pet-photos.queries.ts";
import type { PhotoType } from "./photo-formats.ts";
import { abandonUpload, type PhotoStores } from "./photo-removal.ts";
import { newPhotoId, type Photo } from "./photos.schemas.ts";

/** An image a request uploads, its format checked. */
interface Upload {
  petId: number;
  contentType: PhotoType;
  bytes: ArrayBuffer;
  /** Where the photo's public address starts: the environment's public origin. */
  origin: string;
  changer: Changer;
  now: number;
}

/**
 * Adds the photo in three steps, so that a confirmed photo always has its
 * object: its pending row (if the caller may add one), then its object,
 * then its confirmation with the animal's new version and event. An upload
 * that fails or is refused past its first step is given up at once, and
 * whatever a failure leaves, the scheduled job deletes.
 *
 * With a claim, an earlier request's reply is replayed before anything is
 * written (a photo that was the animal's last place replays rather than
 * hitting its limit); a concurrent request with the same key that
 * confirms first makes this one give up its upload and replay that reply.
 */
export async function addPhoto(
  stores: PhotoStores,
  upload: Upload,
  claim: Claim | undefined,
): Promise<Outcome<Photo, Refused>> {
  const { db } = stores;
  if (claim) {
    const earlier = await earlierOutcome(db, claim);
    if (earlier) return earlier;
  }
  const id = newPhotoId();
  const photo = { id, petId: upload.petId };
  const reserved = await reservePhoto(
    db,
    {
      ...photo,
      url: `${upload.origin}${PHOTOS_PATH}/${id}`,
      contentType: upload.contentType,
      size: upload.bytes.byteLength,
      now: upload.now,
    },
    upload.changer,
  );
  if (reserved.kind !== "made") return reserved;
  let outcome: Outcome<Photo, Refused>;
  try {
    await stores.photos.put(id, upload.bytes, upload.contentType);
    outcome = await confirmPhoto(db, photo, claim);
  } catch (error) {
    await abandonUpload(stores, id);
    throw error;
  }
  if (outcome.kind !== "made" && outcome.kind !== "stored") await abandonUpload(stores, id);
  return outcome;
}
