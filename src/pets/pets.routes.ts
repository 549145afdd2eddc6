import { IdempotencyHeadersSchema } from "../api/idempotency-key.ts";
import { nextPageLinkHeader } from "../api/pagination.ts";
import { createdHeaders, errorResponses, jsonReply } from "../api/responses.ts";
import { type ApiRoute, apiRoutes } from "../api/route-table.ts";
import {
  ListPetsQuerySchema,
  NewPetSchema,
  PET_NOT_FOUND,
  PetIdParamsSchema,
  PetSchema,
  PetsSchema,
} from "./pets.schemas.ts";

const pets = { tags: ["pets"], stability: "stable" } satisfies Partial<ApiRoute>;

/** The animals' operations, keyed by operation id: the one declaration of each. */
export const petRoutes = apiRoutes({
  listPets: {
    ...pets,
    scope: "pets:read",
    method: "get",
    path: "/pets",
    summary: "List animals",
    description:
      'Animals in ascending id order (creation order), stable across pages. The body is the bare array; when more animals follow, `Link: <…>; rel="next"` points at the next page. Follow it rather than building the cursor.',
    request: { query: ListPetsQuerySchema },
    responses: {
      200: jsonReply("A page of animals (possibly empty).", PetsSchema, {
        Link: nextPageLinkHeader(
          '<https://api.petstore.example.com/v1/pets?limit=20&status=sold&cursor=cDE6NDI>; rel="next"',
        ),
      }),
      ...errorResponses([400, 401, 429, 500, 503]),
    },
  },
  createPet: {
    ...pets,
    scope: "pets:write",
    method: "post",
    path: "/pets",
    summary: "Add an animal",
    description:
      "Adds an animal; `status` defaults to `available`. Send `Content-Type: application/json` and at most 16 KiB. With an `Idempotency-Key`, a retry with the same key and body within 24 hours returns the first response again, as it was sent even if the animal has changed since (with `Idempotent-Replayed: true`), and adds nothing; concurrent requests with one key create one animal and the others replay it, so 409 is never returned. The same key with a different body, or one already used on another operation, gives 422.",
    request: {
      headers: IdempotencyHeadersSchema,
      body: { required: true, content: { "application/json": { schema: NewPetSchema } } },
    },
    responses: {
      201: jsonReply(
        "The animal was added.",
        PetSchema,
        createdHeaders("Address of the new animal.", "/v1/pets/42"),
      ),
      ...errorResponses([400, 401, 413, 415, 422, 429, 500, 503]),
    },
  },
  /** Deprecated in favour of the listing; its dates are configuration. */
  getPet: {
    ...pets,
    scope: "pets:read",
    method: "get",
    path: "/pets/{petId}",
    deprecation: { successor: "/v1/pets", documentation: "/docs" },
    invalidIdMessage: PET_NOT_FOUND,
    summary: "Fetch one animal (deprecated)",
    description:
      "Deprecated: use `GET /pets` (with the `status` filter) instead. Every reply carries `Deprecation`, `Sunset` and `Link` headers; from the sunset instant on, it answers 410 `gone`. A `petId` that is not a valid identifier gives 404, like one that does not exist.",
    request: { params: PetIdParamsSchema },
    responses: {
      200: jsonReply("The animal.", PetSchema),
      ...errorResponses([401, [404, PET_NOT_FOUND], 410, 429, 500, 503]),
    },
  },
});
