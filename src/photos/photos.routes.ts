import { readReplies } from "../api/record-responses.ts";
import {
  ANY_OPERATION,
  createdHeaders,
  deletedReply,
  errorResponses,
  jsonReply,
} from "../api/responses.ts";
import { type ApiRoute, apiRoutes } from "../api/route-table.ts";
import { PHOTO_TYPES } from "../db/photos-table.ts";
import { messages } from "../errors.ts";
import { notFound, notOwner } from "../pets/pets.routes.ts";
import { PET_NOT_FOUND, PetIdParamsSchema } from "../pets/pets.schemas.ts";
import {
  MAX_PHOTO_BYTES,
  MAX_PHOTOS,
  PHOTO_NOT_FOUND,
  PhotoFileSchema,
  PhotoIdSchema,
  PhotoSchema,
  PhotosSchema,
} from "./photos.schemas.ts";

const photos = {
  tags: ["pets"],
  stability: "beta",
  invalidIdMessage: PET_NOT_FOUND,
} satisfies Partial<ApiRoute>;

const PhotoParamsSchema = PetIdParamsSchema.extend({
  photoId: PhotoIdSchema.openapi({
    param: { name: "photoId", in: "path", description: "Identifier of the photo." },
  }),
});

const image = { schema: PhotoFileSchema };

/** An animal's photos, keyed by operation id: the one declaration of each. */
export const petPhotoRoutes = apiRoutes({
  addPetPhoto: {
    ...photos,
    scope: "pets:write",
    method: "post",
    path: "/pets/{petId}/photos",
    maxBodyBytes: MAX_PHOTO_BYTES,
    idempotent: true,
    summary: "Add a photo (beta)",
    description: `The body is the image itself: JPEG, PNG or WebP, at most 5 MiB, never decoded or changed. At most ${MAX_PHOTOS} per animal. The Photo's \`url\` (also in \`Location\` and \`photoUrls\`) needs no key. The animal's \`etag\` changes, with \`pet.updated\`. The same body is the same bytes and type.`,
    request: {
      params: PetIdParamsSchema,
      body: {
        required: true,
        content: Object.fromEntries(PHOTO_TYPES.map((type) => [type, image])),
      },
    },
    responses: {
      201: jsonReply(
        "The photo was added.",
        PhotoSchema,
        createdHeaders(
          "The photo's public address, its `url`.",
          "https://api.petstore.example.com/photos/q1Lw0m9bX2c8Vt4ZpR7nJg",
        ),
      ),
      ...errorResponses([
        400,
        401,
        notOwner,
        notFound,
        { status: 409, codes: ["limit_reached"], message: messages.photoLimitReached(MAX_PHOTOS) },
        {
          status: 413,
          description: "The body is larger than 5 MiB.",
          message: messages.payloadTooLarge(MAX_PHOTO_BYTES),
        },
        {
          status: 415,
          description:
            "Not sent as image/jpeg, image/png or image/webp, or not beginning with that format's signature.",
          message: messages.unsupportedBodyType(PHOTO_TYPES),
        },
        422,
        ...ANY_OPERATION,
      ]),
    },
  },
  listPetPhotos: {
    ...photos,
    scope: "pets:read",
    method: "get",
    path: "/pets/{petId}/photos",
    summary: "List an animal's photos (beta)",
    description:
      "Oldest first, as in `photoUrls`; at most ten, in one reply. Listing them is the only way to learn their ids.",
    request: { params: PetIdParamsSchema },
    responses: readReplies("The animal's photos (possibly none).", PhotosSchema, notFound),
  },
  deletePetPhoto: {
    ...photos,
    scope: "pets:write",
    method: "delete",
    path: "/pets/{petId}/photos/{photoId}",
    invalidIdMessage: PHOTO_NOT_FOUND,
    summary: "Delete a photo (beta)",
    description:
      "Its `url` answers 404 from then on (a browser may keep its copy) and it leaves `photoUrls`; the animal's `etag` changes, with `pet.updated`.",
    request: { params: PhotoParamsSchema },
    responses: {
      204: deletedReply,
      ...errorResponses([401, notOwner, [404, PHOTO_NOT_FOUND], ...ANY_OPERATION]),
    },
  },
});
