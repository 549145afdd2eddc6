import { createRoute } from "@hono/zod-openapi";
import { jsonBody } from "../middleware/json-body.ts";
import { commonHeaders, errorResponses } from "../openapi/responses.ts";
import {
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
    'Animals in ascending id order. When more follow, `Link: <…>; rel="next"` points at the next page.',
  security,
  "x-stability": "stable",
  request: { query: ListPetsQuerySchema },
  responses: {
    200: {
      description: "A page of animals (possibly empty).",
      headers: {
        ...commonHeaders,
        Link: {
          description: 'RFC 8288 link to the next page (rel="next"); absent on the last page.',
          schema: { type: "string" },
        },
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
  security,
  "x-stability": "stable",
  middleware: [jsonBody()] as const,
  request: {
    body: { required: true, content: { "application/json": { schema: NewPetSchema } } },
  },
  responses: {
    201: {
      description: "The animal was added.",
      headers: {
        ...commonHeaders,
        Location: { description: "Address of the new animal.", schema: { type: "string" } },
      },
      content: { "application/json": { schema: PetSchema } },
    },
    ...errorResponses(400, 401, 413, 415, 429, 500, 503),
  },
});

export const getPetRoute = createRoute({
  method: "get",
  path: "/pets/{petId}",
  operationId: "getPet",
  tags: ["pets"],
  summary: "Fetch one animal (deprecated)",
  description:
    "Deprecated; removed on 5 December 2030, after which it answers 410. Use `GET /pets` instead.",
  deprecated: true,
  security,
  "x-stability": "stable",
  request: { params: PetIdParamsSchema },
  responses: {
    200: {
      description: "The animal.",
      headers: {
        ...commonHeaders,
        Deprecation: {
          description: "RFC 9745: when the deprecation took effect (@unix-seconds).",
          schema: { type: "string" },
        },
        Sunset: {
          description: "RFC 8594: when the operation is removed.",
          schema: { type: "string" },
        },
        Link: {
          description: "Successor and deprecation documentation links.",
          schema: { type: "string" },
        },
      },
      content: { "application/json": { schema: PetSchema } },
    },
    ...errorResponses(401, 404, 410, 429, 500, 503),
  },
});
