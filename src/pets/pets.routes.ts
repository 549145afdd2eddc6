import { createRoute } from "@hono/zod-openapi";
import { goneAfterSunset } from "../middleware/deprecation.ts";
import { jsonBody } from "../middleware/json-body.ts";
import {
  commonHeaders,
  errorResponses,
  optionalHeader,
  type ResponseHeaders,
  withHeaders,
} from "../openapi/responses.ts";
import { getPetSchedule } from "./pets.deprecation.ts";
import {
  CreatePetHeadersSchema,
  ListPetsQuerySchema,
  NewPetSchema,
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
        Link: optionalHeader({
          description:
            'RFC 8288 link to the next page (`rel="next"`); absent on the last page, so not on every reply.',
          schema: { type: "string" },
          example:
            '<https://api.petstore.example.com/v1/pets?limit=20&status=sold&cursor=cDE6NDI>; rel="next"',
        }),
      },
      content: { "application/json": { schema: PetsSchema } },
    },
    ...errorResponses(400, 401, 429, 500, 503),
  },
});

export const createPetRoute = createRoute({
  method: "post",
  path: "/pets",
  operationId: "createPet",
  tags: ["pets"],
  summary: "Add an animal",
  description:
    "Adds an animal; `status` defaults to `available`. Send `Content-Type: application/json` and at most 16 KiB. With an `Idempotency-Key`, a retry with the same key and body within 24 hours returns the first response again (with `Idempotent-Replayed: true`) and adds nothing; concurrent requests with one key create one animal and the others replay it, so 409 is never returned. The same key with a different body gives 422.",
  security,
  "x-stability": "stable",
  middleware: [jsonBody()] as const,
  request: {
    headers: CreatePetHeadersSchema,
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
        "Idempotent-Replayed": optionalHeader({
          description: "Present, as `true`, when this is the replay of an earlier response.",
          schema: { type: "string", enum: ["true"] },
          example: "true",
        }),
      },
      content: { "application/json": { schema: PetSchema } },
    },
    ...errorResponses(400, 401, 413, 415, 422, 429, 500, 503),
  },
});

/** RFC 9745 / RFC 8594 marks carried by every reply of getPet, errors included. */
const deprecationHeaders: ResponseHeaders = {
  Deprecation: {
    description: "RFC 9745: the instant the deprecation took effect, as `@` and Unix seconds.",
    required: true,
    schema: { type: "string", pattern: "^@[0-9]+$" },
    example: "@1767225600",
  },
  Sunset: {
    description: "RFC 8594: when the operation is removed (HTTP date).",
    required: true,
    schema: { type: "string" },
    example: "Thu, 05 Dec 2030 00:00:00 GMT",
  },
  Link: {
    description: "The successor operation and this deprecation's documentation.",
    required: true,
    schema: { type: "string" },
    example: '</v1/pets>; rel="successor-version", </docs>; rel="deprecation"',
  },
};

export const getPetRoute = createRoute({
  method: "get",
  path: "/pets/{petId}",
  operationId: "getPet",
  tags: ["pets"],
  summary: "Fetch one animal (deprecated)",
  description:
    "Deprecated since 1 January 2026; sunset on 5 December 2030 (2030-12-05T00:00:00Z), from which instant it answers 410 `gone`. Use `GET /pets` (with the `status` filter) instead. Every reply carries `Deprecation`, `Sunset` and `Link` headers. A `petId` that is not a valid identifier gives 404, like one that does not exist.",
  deprecated: true,
  security,
  "x-stability": "stable",
  middleware: [goneAfterSunset(getPetSchedule)] as const,
  request: { params: PetIdParamsSchema },
  responses: withHeaders(
    {
      200: {
        description: "The animal.",
        headers: commonHeaders,
        content: { "application/json": { schema: PetSchema } },
      },
      ...errorResponses(401, 404, 410, 429, 500, 503),
    },
    deprecationHeaders,
  ),
});
