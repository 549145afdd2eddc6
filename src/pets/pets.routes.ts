import { createRoute } from "@hono/zod-openapi";
import type { DeprecationNotice } from "../api/deprecation.ts";
import { IdempotencyHeadersSchema, idempotentReplayedHeader } from "../api/idempotency-key.ts";
import { nextPageLinkHeader } from "../api/pagination.ts";
import { commonHeaders, errorResponses } from "../api/responses.ts";
import {
  ListPetsQuerySchema,
  NewPetSchema,
  PET_NOT_FOUND,
  PetIdParamsSchema,
  PetSchema,
  PetsSchema,
} from "./pets.schemas.ts";

const security = [{ bearerAuth: [] }];

export const listPetsRoute = createRoute({
  method: "get",
  path: "/pets",
  operationId: "listPets",
  tags: ["pets"],
  summary: "List animals",
  description:
    'Animals in ascending id order (creation order), stable across pages. The body is the bare array; when more animals follow, `Link: <…>; rel="next"` points at the next page. Follow it rather than building the cursor.',
  security,
  "x-stability": "stable",
  request: { query: ListPetsQuerySchema },
  responses: {
    200: {
      description: "A page of animals (possibly empty).",
      headers: {
        ...commonHeaders,
        Link: nextPageLinkHeader(
          '<https://api.petstore.example.com/v1/pets?limit=20&status=sold&cursor=cDE6NDI>; rel="next"',
        ),
      },
      content: { "application/json": { schema: PetsSchema } },
    },
    ...errorResponses([400, 401, 429, 500, 503]),
  },
});

export const createPetRoute = createRoute({
  method: "post",
  path: "/pets",
  operationId: "createPet",
  tags: ["pets"],
  summary: "Add an animal",
  description:
    "Adds an animal; `status` defaults to `available`. Send `Content-Type: application/json` and at most 16 KiB. With an `Idempotency-Key`, a retry with the same key and body within 24 hours returns the first response again, as it was sent even if the animal has changed since (with `Idempotent-Replayed: true`), and adds nothing; concurrent requests with one key create one animal and the others replay it, so 409 is never returned. The same key with a different body, or one already used on another operation, gives 422.",
  security,
  "x-stability": "stable",
  request: {
    headers: IdempotencyHeadersSchema,
    body: { required: true, content: { "application/json": { schema: NewPetSchema } } },
  },
  responses: {
    201: {
      description: "The animal was added.",
      headers: {
        ...commonHeaders,
        Location: {
          description: "Address of the new animal.",
          required: true,
          schema: { type: "string" },
          example: "/v1/pets/42",
        },
        "Idempotent-Replayed": idempotentReplayedHeader,
      },
      content: { "application/json": { schema: PetSchema } },
    },
    ...errorResponses([400, 401, 413, 415, 422, 429, 500, 503]),
  },
});

/** getPet is deprecated in favour of listing with the `status` filter; its dates are configuration. */
export const getPetDeprecation: DeprecationNotice = {
  method: "GET",
  path: "/pets/{petId}",
  successor: "/v1/pets",
  documentation: "/docs",
  operationId: "getPet",
};

export const getPetRoute = createRoute({
  method: "get",
  path: getPetDeprecation.path,
  operationId: "getPet",
  tags: ["pets"],
  summary: "Fetch one animal (deprecated)",
  description:
    "Deprecated: use `GET /pets` (with the `status` filter) instead. Every reply carries `Deprecation`, `Sunset` and `Link` headers; from the sunset instant on, it answers 410 `gone`. A `petId` that is not a valid identifier gives 404, like one that does not exist.",
  deprecated: true,
  security,
  "x-stability": "stable",
  request: { params: PetIdParamsSchema },
  responses: {
    200: {
      description: "The animal.",
      headers: commonHeaders,
      content: { "application/json": { schema: PetSchema } },
    },
    ...errorResponses([401, [404, PET_NOT_FOUND], 410, 429, 500, 503]),
  },
});

/** The animals' operations, as the OpenAPI document describes them. */
export const petsOperations = [listPetsRoute, createPetRoute, getPetRoute];

export const petsDeprecations: readonly DeprecationNotice[] = [getPetDeprecation];
