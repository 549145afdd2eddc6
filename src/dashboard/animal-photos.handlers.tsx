import type { MiddlewareHandler } from "hono";
import { PHOTO_TYPES } from "../db/photos-table.ts";
import { replyOf } from "../idempotency/idempotent-request.ts";
import { listPhotos, releasePhoto } from "../photos/pet-photos.queries.ts";
import { hasSignature } from "../photos/photo-formats.ts";
import { addPhoto } from "../photos/photo-uploads.ts";
import { MAX_PHOTO_BYTES, MAX_PHOTOS, PhotoSchema } from "../photos/photos.schemas.ts";
import { toBase64 } from "../utils/base64url.ts";
import { sha256 } from "../utils/sha256.ts";
import { noticeAndRedirect } from "./account.handlers.tsx";
import { renderAnimal } from "./animal-page.handlers.tsx";
import { signedInAs } from "./csrf.ts";
import { formClaim } from "./form-keys.ts";
import { accountChanger, animalNotFound, animalPage, ownAnimal } from "./own-animal.ts";
import { RemovePhotoPage } from "./pages/animal-page.tsx";
import { messageResponse } from "./pages/layout.tsx";
import type { DashboardContext, DashboardEnv } from "./session.ts";

/**
 * The most an upload's body may hold: the photo, and the form's other
 * fields and multipart framing, which take well under 16 KiB.
 */
export const UPLOAD_LIMIT = MAX_PHOTO_BYTES + 16 * 1024;

/** The path of an animal's photo uploads, below /dashboard. */
export const UPLOAD_PATH = /^\/dashboard\/animals\/[^/]+\/photos$/;

/** Whether the request is an upload whose announced length is more than an upload may be. */
export function announcesOversizedUpload(c: DashboardContext): boolean {
  const length = Number(c.req.header("Content-Length"));
  return UPLOAD_PATH.test(c.req.path) && Number.isFinite(length) && length > UPLOAD_LIMIT;
}

const TOO_LARGE =
  "This photo is larger than 5 MiB, the most a photo may be. Send a smaller one: most phones can share a photo at a smaller size, or take it at a lower resolution.";

/**
 * An upload whose body says it is too large was never read (so it carries
 * no form to check a token in, and nothing changes): the animal's page
 * says why, with a 413.
 */
export function refuseOversizedUpload(): MiddlewareHandler<DashboardEnv> {
  return async function refuseOversizedUpload(c, next) {
    if (!announcesOversizedUpload(c)) return next();
    const animal = await ownAnimal(c);
    return animal ? renderAnimal(c, animal, { status: 413, reason: TOO_LARGE }) : animalNotFound(c);
  };
}

/** The photo format whose signature the bytes begin with, if any: what the file holds, whatever its name says. */
const formatOf = (bytes: Uint8Array) => PHOTO_TYPES.find((type) => hasSignature(bytes, type));

/**
 * Adds the posted photo through the API's own upload (its pending row, its
 * object, its confirmation with the animal's new version and event), the
 * form's one-time token as the idempotency key.
 */
export async function uploadPhoto(c: DashboardContext) {
  const animal = await ownAnimal(c);
  if (!animal) return animalNotFound(c);
  const file = c.get("form").photo;
  if (!(file instanceof File) || file.size === 0) {
    return renderAnimal(c, animal, { status: 400, reason: "Choose a photo to upload." });
  }
  if (file.size > MAX_PHOTO_BYTES)
    return renderAnimal(c, animal, { status: 413, reason: TOO_LARGE });
  const bytes = await file.arrayBuffer();
  const contentType = formatOf(new Uint8Array(bytes));
  if (!contentType) {
    const reason =
      "This file is not a JPEG, PNG or WebP image. Choose a photo in one of these formats (a phone that saves HEIC photos can usually share them as JPEG).";
    return renderAnimal(c, animal, { status: 415, reason });
  }
  const services = c.get("services");
  const petId = animal.pet.id;
  const upload = {
    petId,
    contentType,
    bytes,
    origin: services.config.publicOrigin ?? new URL(c.req.url).origin,
    changer: accountChanger(c),
    now: Date.now(),
  };
  const fingerprint = { petId, type: contentType, sha256: toBase64(await sha256(bytes)) };
  const outcome = await addPhoto(services, upload, await formClaim(c, "addPetPhoto", fingerprint));
  if (outcome.kind === "refused") {
    if (outcome.refusal.kind !== "limitReached") return animalNotFound(c);
    const reason = `This animal already has ${MAX_PHOTOS} photos, the most it may have. Remove one, then add this one.`;
    return renderAnimal(c, animal, { status: 409, reason });
  }
  if (outcome.kind === "reused") {
    const reason =
      "This form was already used for another photo. Choose the photo again and upload it.";
    return renderAnimal(c, animal, { status: 409, reason });
  }
  replyOf(outcome, 201, PhotoSchema);
  const text = `The photo is added to ${animal.pet.name}.`;
  return noticeAndRedirect(c, { kind: "done", text }, animalPage(petId));
}

/** The photo the path names, of the account's animal the path names. */
async function ownPhoto(c: DashboardContext) {
  const animal = await ownAnimal(c);
  if (!animal) return undefined;
  const photos = await listPhotos(c.get("services").db, animal.pet.id);
  const photo = photos?.find((each) => each.id === c.req.param("photoId"));
  return photo && { animal, photo };
}

const photoNotFound = (c: DashboardContext) =>
  messageResponse(c, 404, "Photo not found", "Your account has no such photo.", {
    href: "/dashboard/animals",
    text: "Back to your animals",
  });

/** Asks before removing a photo: the page's form is the only thing that posts the removal. */
export async function confirmRemovePhoto(c: DashboardContext) {
  const found = await ownPhoto(c);
  if (!found) return photoNotFound(c);
  const signedIn = await signedInAs(c);
  return c.html(<RemovePhotoPage {...signedIn} pet={found.animal.pet} photo={found.photo} />);
}

/** Takes the photo from its animal through the API's own change; its object goes as after the API's. */
export async function removePhoto(c: DashboardContext) {
  const found = await ownPhoto(c);
  if (!found) return photoNotFound(c);
  const services = c.get("services");
  const { animal, photo } = found;
  const photoRef = { id: photo.id, petId: animal.pet.id };
  const outcome = await releasePhoto(services.db, photoRef, accountChanger(c));
  if (outcome.kind === "refused") return photoNotFound(c);
  const text = `The photo is removed from ${animal.pet.name}.`;
  return noticeAndRedirect(c, { kind: "done", text }, animalPage(animal.pet.id));
}
