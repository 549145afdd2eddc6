import { conditionalChange, IfMatchHeaderSchema } from "../api/entity-tags.ts";
import { pagedListing } from "../api/pagination.ts";
import { changedReply, createdReply, recordRefusals } from "../api/record-responses.ts";
import { jsonBody, patchBody, patchTypeRefused } from "../api/request-bodies.ts";
import {
  ANY_OPERATION,
  type DocumentedError,
  deletedReply,
  errorResponses,
  jsonReply,
} from "../api/responses.ts";
import { type ApiRoute, apiRoutes } from "../api/route-table.ts";
import { messages } from "../errors.ts";
import {
  ListPetsQuerySchema,
  NewPetSchema,
  PET_NOT_FOUND,
  PetIdParamsSchema,
  PetPatchSchema,
  PetSchema,
  PetsSchema,
} from "./pets.schemas.ts";

const pets = { tags: ["pets"], stability: "stable" } satisfies Partial<ApiRoute>;
const managing = {
  ...pets,
  stability: "beta",
  invalidIdMessage: PET_NOT_FOUND,
} satisfies Partial<ApiRoute>;

const refusals = recordRefusals("animal", PET_NOT_FOUND);
/** The animal's 404 and 403, which the operations on its photos document too. */
export const { notFound, notOwner } = refusals;
const unknownCategory: DocumentedError = {
  status: 422,
  codes: ["unknown_category", "unknown_shelter"],
  description:
    "`categoryId` names no category, or `shelterId` no shelter; `details` names the field.",
};
const orderOpen: DocumentedError = {
  status: 409,
  codes: ["order_open"],
  description:
    "A placed order owns the animal's status: it cannot move or be deleted until the order is completed or cancelled. The message names the order.",
};

/** An animal's body may carry a description of 4,000 characters, each up to 12 bytes escaped. */
const PET_BODY_BYTES = 64 * 1024;
const payloadTooLarge: DocumentedError = {
  status: 413,
  description: "The body is larger than 64 KiB.",
  message: messages.payloadTooLarge(PET_BODY_BYTES),
};
const notOwnerOfEither: DocumentedError = {
  status: 403,
  description:
    "The key lacks this operation's scope or is used from outside its address ranges, or the animal or the shelter `shelterId` names belongs to another account: only that account's keys may change them.",
};

const CONDITIONAL = conditionalChange("added the animal");

/** Why a change of an animal is refused, whatever it changes, after whose it is. */
const changeRefusals: DocumentedError[] = [notFound, orderOpen, refusals.stale];

/** The animals' operations, keyed by operation id: the one declaration of each. */
export const petRoutes = apiRoutes({
  listPets: {
    ...pets,
    scope: "pets:read",
    method: "get",
    path: "/pets",
    summary: "List animals",
    description:
      'Animals in ascending id order (creation order), stable across pages, or newest first with `direction=desc`. Finders (beta) narrow the listing and combine with each other and with paging: `status` and `categoryId` (repeatable: any of them), `id` (repeatable, at most 100: how to fetch known animals), `q` (words that begin words of the name), and the profile: `shelterId`, `age` and `size` (repeatable), `breed` (repeatable, words as for `q`), `sex` and the six yes/no fields. The body is the bare array; when more animals may follow, `Link: <…>; rel="next"` points at the next page, keeping every filter. Follow it until it is absent rather than building the cursor: with `q` or `breed` and another filter, or with `sex` or a yes/no field, a page may hold fewer animals than `limit`, even none, and still have a next page.',
    ...pagedListing({
      query: ListPetsQuerySchema,
      page: PetsSchema,
      description: "A page of animals (possibly empty).",
      next: '<https://api.petstore.example.com/v1/pets?limit=20&status=sold&cursor=cDE6NDI>; rel="next"',
    }),
  },
  createPet: {
    ...pets,
    scope: "pets:write",
    method: "post",
    path: "/pets",
    maxBodyBytes: PET_BODY_BYTES,
    idempotent: true,
    summary: "Add an animal",
    description:
      "Adds an animal, owned by the account of the key that sends it; `status` defaults to `available`, and `categoryId` must name a category (422 `unknown_category` otherwise). Its profile (beta) is optional: `shelterId` must name a shelter of the caller's account (422 `unknown_shelter`, 403 `not_owner`). A replay is the first response even if the animal changed since: never 409.",
    request: {
      body: jsonBody(NewPetSchema),
    },
    responses: {
      201: createdReply(
        "The animal was added.",
        PetSchema,
        "Address of the new animal.",
        "/v1/pets/42",
      ),
      ...errorResponses([
        400,
        401,
        {
          status: 403,
          description:
            "The key lacks this operation's scope or is used from outside its address ranges, or the shelter `shelterId` names belongs to another account.",
        },
        payloadTooLarge,
        415,
        {
          status: 422,
          codes: ["unknown_category", "unknown_shelter", "idempotency_key_reused"],
          description:
            "`categoryId` names no category or `shelterId` no shelter, or the Idempotency-Key was used with a different body or on another operation.",
        },
        ...ANY_OPERATION,
      ]),
    },
  },
  /** Deprecated in favour of the listing's `id` filter; its dates are configuration. */
  getPet: {
    ...pets,
    scope: "pets:read",
    method: "get",
    path: "/pets/{petId}",
    deprecation: { successor: "/v1/pets?id={petId}", documentation: "/docs" },
    invalidIdMessage: PET_NOT_FOUND,
    summary: "Fetch one animal (deprecated)",
    description:
      "Deprecated: use `GET /pets?id={petId}` (the listing's `id` filter) instead. Every reply carries `Deprecation`, `Sunset` and `Link` headers; from the sunset instant on, it answers 410 `gone`. A `petId` that is not a valid identifier gives 404, like one that does not exist or was deleted.",
    request: { params: PetIdParamsSchema },
    responses: {
      200: jsonReply("The animal; its `ETag` is its `etag`.", PetSchema),
      ...errorResponses([401, notFound, 410, ...ANY_OPERATION]),
    },
  },
  updatePet: {
    ...managing,
    scope: "pets:write",
    method: "patch",
    path: "/pets/{petId}",
    maxBodyBytes: PET_BODY_BYTES,
    summary: "Change an animal (beta)",
    description: `Changes the fields sent (at least one), as \`application/json\` or \`application/merge-patch+json\`: \`null\` clears a profile field and gives 400 for \`name\`, \`categoryId\` and \`status\`. \`pet.updated\` names the fields that changed. A change that sets what the animal already has answers 200 with the same \`etag\` and writes nothing. While a placed order owns the animal's status, changing it gives 409 \`order_open\`; setting the status it has is never refused. \`categoryId\` must name a category and \`shelterId\` a shelter of the caller's (422). ${CONDITIONAL}`,
    request: {
      params: PetIdParamsSchema,
      headers: IfMatchHeaderSchema,
      body: patchBody(PetPatchSchema),
    },
    responses: {
      200: changedReply("The animal after the change.", PetSchema),
      ...errorResponses([
        400,
        401,
        notOwnerOfEither,
        ...changeRefusals,
        payloadTooLarge,
        patchTypeRefused,
        unknownCategory,
        ...ANY_OPERATION,
      ]),
    },
  },
  deletePet: {
    ...managing,
    scope: "pets:write",
    method: "delete",
    path: "/pets/{petId}",
    summary: "Delete an animal (beta)",
    description: `Deletes the animal: from then on it is 404 everywhere, never listed and never ordered, and its id is never given to another; orders that name it keep its \`petId\`. While it has a placed order, 409 \`order_open\`. Deleting it again gives 404. ${CONDITIONAL}`,
    request: { params: PetIdParamsSchema, headers: IfMatchHeaderSchema },
    responses: {
      204: deletedReply,
      ...errorResponses([400, 401, notOwner, ...changeRefusals, ...ANY_OPERATION]),
    },
  },
});
