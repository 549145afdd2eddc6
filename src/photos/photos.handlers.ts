import type { RouteHandlers } from "../api/route-handlers.ts";
import { changerOf } from "../catalogue/ownership.ts";
import { refusalError } from "../catalogue/refusals.ts";
import { ApiError, messages } from "../errors.ts";
import { replyOf } from "../idempotency/idempotent-request.ts";
import { PET_NOT_FOUND } from "../pets/pets.schemas.ts";
import { listPhotos, releasePhoto } from "./pet-photos.queries.ts";
import { hasSignature, photoTypeOf } from "./photo-formats.ts";
import { addPhoto } from "./photo-uploads.ts";
import type { petPhotoRoutes } from "./photos.routes.ts";
import { PHOTO_NOT_FOUND, PhotoSchema } from "./photos.schemas.ts";

/** How a refusal's error names an animal and its photo. */
const animal = { noun: "animal", notFound: PET_NOT_FOUND, photoNotFound: PHOTO_NOT_FOUND } as const;

/** An animal's photos' handlers, one per route of the table. */
export const petPhotoHandlers = {
  addPetPhoto: async (c) => {
    const { petId } = c.req.valid("param");
    // The route's body checks let only these media types through, and read the body whole.
    const contentType = photoTypeOf(c.req.header("Content-Type"));
    const bytes = await c.req.arrayBuffer();
    if (!contentType || !hasSignature(new Uint8Array(bytes), contentType)) {
      throw new ApiError("unsupported_media_type", messages.notThatImage(contentType ?? "it"));
    }
    const services = c.get("services");
    const upload = {
      petId,
      contentType,
      bytes,
      origin: services.config.publicOrigin ?? new URL(c.req.url).origin,
      changer: changerOf(c.get("apiKey"), services.config),
      now: Date.now(),
    };
    const outcome = await addPhoto(services, upload, c.get("claim"));
    if (outcome.kind === "refused") throw refusalError(outcome.refusal, animal);
    const photo = replyOf(outcome, 201, PhotoSchema);
    c.header("Location", photo.url);
    return c.json(photo, 201);
  },

  listPetPhotos: async (c) => {
    const photos = await listPhotos(c.get("services").db, c.req.valid("param").petId);
    if (!photos) throw new ApiError("not_found", PET_NOT_FOUND);
    return c.json(photos, 200);
  },

  deletePetPhoto: async (c) => {
    const { petId, photoId } = c.req.valid("param");
    const services = c.get("services");
    const changer = changerOf(c.get("apiKey"), services.config);
    const outcome = await releasePhoto(services.db, { id: photoId, petId }, changer);
    if (outcome.kind === "refused") throw refusalError(outcome.refusal, animal);
    return c.body(null, 204);
  },
} satisfies RouteHandlers<typeof petPhotoRoutes>;
