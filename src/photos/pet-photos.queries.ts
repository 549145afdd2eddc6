import { and, asc, count, eq, ne, sql } from "drizzle-orm";
import { type Changer, changerValues, ownedByCaller } from "../catalogue/ownership.ts";
import { change } from "../changes/change.ts";
import type { Claim, Outcome } from "../changes/outcomes.ts";
import {
  type Database,
  type Drizzle,
  markedForRemoval,
  millis,
  preparedQueries,
  runAll,
  type Statement,
} from "../db/database.ts";
import { insertWhere } from "../db/insert-where.ts";
import { confirmed, photos } from "../db/photos-table.ts";
import { pets } from "../db/schema.ts";
import { live, petShape } from "../pets/pets.queries.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { PhotoType } from "./photo-formats.ts";
import { photoShape } from "./photos.queries.ts";
import { MAX_PHOTOS, type Photo } from "./photos.schemas.ts";

/**
 * The changes of an animal's photos, each one D1 batch. An upload is two:
 * its pending row before its object is written, then, once the object is
 * there, the photo confirmed together with the animal's new version (its
 * etag) and `pet.updated`. A deletion is one: the photo marked for deletion
 * with the same version and event; its object and row go after it.
 */

const petId = sql.placeholder("petId");
const photoId = sql.placeholder("photoId");
const thisPet = and(eq(pets.id, petId), live);
const thisPhoto = and(eq(photos.id, photoId), eq(photos.petId, petId));

/** The animal's photos, and uploads under way: what its limit counts. */
const heldPhotos = (db: Drizzle) =>
  db
    .select({ held: count() })
    .from(photos)
    .where(and(eq(photos.petId, pets.id), ne(photos.state, "deleting")));

/** The live animal and whether it is the caller's, read in a change's batch to say why it changed nothing. */
const petForPhotos = (db: Drizzle) =>
  db
    .select({ owned: ownedByCaller(pets.accountId).mapWith(Boolean).as("owned") })
    .from(pets)
    .where(thisPet)
    .prepare();

/**
 * Starting an upload: its pending row, only for the caller's live animal
 * while it holds fewer than the most photos it may; then the animal, to
 * say why nothing was added.
 */
const reservation = change()
  .step("reserved", (db) =>
    insertWhere(db, photos, {
      row: {
        seq: sql<null>`NULL`.as("seq"),
        id: sql<string>`${photoId}`.as("id"),
        petId: pets.id,
        contentType: sql<PhotoType>`${sql.placeholder("contentType")}`.as("content_type"),
        size: sql<number>`${sql.placeholder("size")}`.as("size"),
        url: sql<string>`${sql.placeholder("url")}`.as("url"),
        state: sql<"pending">`'pending'`.as("state"),
        createdAt: millis("now").as("created_at"),
      },
      from: pets,
      where: and(thisPet, ownedByCaller(pets.accountId), sql`${heldPhotos(db)} < ${MAX_PHOTOS}`),
    })
      .returning({ id: photos.id })
      .prepare(),
  )
  .read("pet", petForPhotos);

/** The animal's version moves on, if the statement before changed a photo of it. */
const touched = (db: Drizzle) =>
  db
    .update(pets)
    .set({ version: sql`${pets.version} + 1` })
    .where(and(thisPet, sql`changes() = 1`))
    .prepare();

/** A change of the animal's photos: that statement, its new version, and `pet.updated`. */
function changingPhotos<N extends string, S extends Statement<unknown>>(
  name: N,
  build: (db: Drizzle) => S,
) {
  return change()
    .step(name, build)
    .step("touched", touched)
    .event({
      type: "pet.updated",
      data: petShape,
      where: eq(pets.id, petId),
      changes: sql<string>`'["photoUrls"]'`,
    });
}

/** Finishing an upload whose object is written: the photo confirmed, if still pending. */
const confirmation = changingPhotos("confirmed", (db) =>
  db
    .update(photos)
    .set({ state: "confirmed" })
    .where(and(thisPhoto, eq(photos.state, "pending")))
    .returning(photoShape.columns)
    .prepare(),
).reply(201, photoShape, eq(photos.id, photoId));

/** Deleting a photo: marked for deletion, if it is the caller's animal's; then the animal, to say why not. */
const release = changingPhotos("released", (db) =>
  db
    .update(photos)
    .set({ state: "deleting" })
    .where(
      and(
        thisPhoto,
        confirmed,
        sql`EXISTS (SELECT 1 FROM ${pets} WHERE ${and(thisPet, ownedByCaller(pets.accountId))})`,
      ),
    )
    .returning({ id: photos.id })
    .prepare(),
).read("pet", petForPhotos);

/** Why a change of photos was refused. */
type PhotoRefusal =
  | { kind: "notFound" }
  | { kind: "notOwner" }
  | { kind: "limitReached"; limit: number }
  | { kind: "photoNotFound" };

/** A change of photos that did not happen, and why. */
export interface Refused {
  kind: "refused";
  refusal: PhotoRefusal;
}

/** The refusal the animal as read gives (none there, or another account's), if it gives one. */
function petRefusal(pet: { owned: boolean } | undefined): PhotoRefusal | undefined {
  if (!pet) return { kind: "notFound" };
  return pet.owned ? undefined : { kind: "notOwner" };
}

/** A photo about to be uploaded: its id, where it will be, and what it is. */
interface NewPhoto {
  id: string;
  petId: number;
  url: string;
  contentType: PhotoType;
  size: number;
  now: number;
}

/** Writes the pending row of the upload, if the caller may add a photo to the animal. */
export async function reservePhoto(
  db: Database,
  photo: NewPhoto,
  changer: Changer,
): Promise<{ kind: "made" } | Refused> {
  const { id, ...rest } = photo;
  const outcome = await reservation.answer(db, {
    values: { ...rest, photoId: id, ...changerValues(changer) },
    made: ({ reserved: [row] }) => row,
    // Otherwise the animal holds its most photos (a race for the last place ends here too).
    refused: ({ pet: [pet] }): Refused => ({
      kind: "refused",
      refusal: petRefusal(pet) ?? { kind: "limitReached", limit: MAX_PHOTOS },
    }),
  });
  return outcome.kind === "made" ? { kind: "made" } : { kind: "refused", refusal: outcome.refusal };
}

/**
 * Confirms the uploaded photo with the animal's new version and event, once
 * per key with a claim; `notFound` when it is no longer pending (its animal
 * was deleted meanwhile).
 */
export function confirmPhoto(
  db: Database,
  photo: { id: string; petId: number },
  claim: Claim | undefined,
): Promise<Outcome<Photo, Refused>> {
  return confirmation.answer(db, {
    values: { photoId: photo.id, petId: photo.petId },
    claim,
    made: ({ confirmed: [row] }) => row && photoShape.render(row),
    refused: (): Refused => ({ kind: "refused", refusal: { kind: "notFound" } }),
  });
}

/** Marks the photo for deletion with the animal's new version and event, if the caller may. */
export async function releasePhoto(
  db: Database,
  photo: { id: string; petId: number },
  changer: Changer,
) {
  const { results } = await release.run(db, {
    photoId: photo.id,
    petId: photo.petId,
    ...changerValues(changer),
  });
  if (results.released.length > 0) {
    markedForRemoval(db, [photo.id]);
    return { kind: "released" as const };
  }
  const [pet] = results.pet;
  const refused: Refused = {
    kind: "refused",
    refusal: petRefusal(pet) ?? { kind: "photoNotFound" },
  };
  return refused;
}

const listing = preparedQueries((db: Drizzle) => ({
  pet: db.select({ id: pets.id }).from(pets).where(thisPet).prepare(),
  photos: db
    .select(photoShape.columns)
    .from(photos)
    .where(and(eq(photos.petId, petId), confirmed))
    .orderBy(asc(photos.seq))
    .prepare(),
}));

/** The live animal's photos, oldest first; undefined when there is no such animal. */
export async function listPhotos(db: Database, id: number): Promise<Photo[] | undefined> {
  const { pet, photos: ofPet } = listing(db);
  const [found, rows] = await guardStorage("D1", () => runAll(db, [pet, ofPet], { petId: id }));
  if ((found as unknown[]).length === 0) return undefined;
  return (rows as Parameters<typeof photoShape.render>[0][]).map(photoShape.render);
}
