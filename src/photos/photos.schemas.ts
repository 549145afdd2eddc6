import { z } from "@hono/zod-openapi";
import { listOf } from "../api/pagination.ts";
import { PHOTO_TYPES } from "../db/photos-table.ts";
import { randomToken } from "../utils/base64url.ts";

/** The largest photo taken: 5 MiB. */
export const MAX_PHOTO_BYTES = 5 * 1024 * 1024;

/** The most photos an animal may have. */
export const MAX_PHOTOS = 10;

/** What a request for a photo that is not there is told, whether the id is unknown, deleted or malformed. */
export const PHOTO_NOT_FOUND = "No photo of this animal has this identifier.";

/** 16 random bytes (128 bits) as base64url: too many to guess, so only a listing tells them. */
const PHOTO_ID = /^[A-Za-z0-9_-]{22}$/;

/** A new photo's id. */
export function newPhotoId(): string {
  return randomToken(16);
}

/** Whether the text could be an id `newPhotoId` made; anything else names no photo. */
export function isPhotoId(text: string): boolean {
  return PHOTO_ID.test(text);
}

export const PhotoIdSchema = z.string().regex(PHOTO_ID).openapi("PhotoId", {
  description: "Identifier of the photo: 22 characters of base64url, random, assigned on upload.",
  example: "q1Lw0m9bX2c8Vt4ZpR7nJg",
});

const examplePhoto = {
  id: "q1Lw0m9bX2c8Vt4ZpR7nJg",
  url: "https://api.petstore.example.com/photos/q1Lw0m9bX2c8Vt4ZpR7nJg",
  contentType: "image/jpeg",
  size: 48213,
  createdAt: "2026-05-01T09:30:00.000Z",
};

export const PhotoSchema = z
  .object({
    id: PhotoIdSchema,
    url: z.url().openapi({
      description:
        "Public: it needs no key, so an `<img>` can show it; cacheable for a year (a photo never changes).",
    }),
    contentType: z.enum(PHOTO_TYPES).openapi({ description: "The media type it was sent as." }),
    size: z.int().min(1).max(MAX_PHOTO_BYTES).openapi({ description: "Its size in bytes." }),
    createdAt: z.iso.datetime().openapi({ description: "When it was uploaded (RFC 3339, UTC)." }),
  })
  .openapi("Photo", { example: examplePhoto });
export type Photo = z.infer<typeof PhotoSchema>;

export const PhotosSchema = listOf(
  "Photos",
  PhotoSchema,
  {
    description: "An animal's photos, oldest first, as a bare array.",
    example: [examplePhoto],
  },
  MAX_PHOTOS,
);

/** The image an upload sends, as the document describes each of its media types. */
export const PhotoFileSchema = z.string().openapi({
  type: "string",
  format: "binary",
  description: "The image itself.",
});
