import { conditionalChange, IfMatchHeaderSchema } from "../api/entity-tags.ts";
import { pagedListing } from "../api/pagination.ts";
import {
  changedReply,
  createdReply,
  readReplies,
  recordRefusals,
} from "../api/record-responses.ts";
import { jsonBody, patchBody, patchTypeRefused } from "../api/request-bodies.ts";
import { ANY_OPERATION, deletedReply, errorResponses } from "../api/responses.ts";
import { type ApiRoute, apiRoutes } from "../api/route-table.ts";
import { messages } from "../errors.ts";
import {
  ListSheltersQuerySchema,
  NewShelterSchema,
  SHELTER_NOT_FOUND,
  ShelterIdParamsSchema,
  ShelterPatchSchema,
  ShelterSchema,
  SheltersSchema,
} from "./shelters.schemas.ts";

/** The `shelters` tag of the document. */
export const sheltersTag = {
  name: "shelters",
  description:
    "Where animals live (beta): each shelter's contact, address and place in decimal degrees, which clients send (the service does not geocode addresses). An animal names its shelter with `shelterId`; only the account whose key made a shelter may change it or put animals in it.",
};

const tagged = { tags: [sheltersTag.name], stability: "beta" } satisfies Partial<ApiRoute>;
const managing = { ...tagged, invalidIdMessage: SHELTER_NOT_FOUND } satisfies Partial<ApiRoute>;

const { notFound, notOwner, stale } = recordRefusals("shelter", SHELTER_NOT_FOUND);

const CONDITIONAL = conditionalChange("made the shelter");

/** The shelters' operations, keyed by operation id: the one declaration of each. */
export const shelterRoutes = apiRoutes({
  listShelters: {
    ...tagged,
    scope: "pets:read",
    method: "get",
    path: "/shelters",
    summary: "List shelters (beta)",
    description:
      'Shelters in ascending id order, stable across pages, found by `id` (repeatable, at most 100), `q` (words that begin words of the name) and `country` (repeatable), each combining with the others. The body is the bare array; when more may follow, `Link: <…>; rel="next"` points at the next page, keeping every filter. Follow it until it is absent: with `q` and `country`, a page may hold fewer shelters than `limit`, even none, and still have a next page.',
    ...pagedListing({
      query: ListSheltersQuerySchema,
      page: SheltersSchema,
      description: "A page of shelters (possibly empty).",
      next: '<https://api.petstore.example.com/v1/shelters?limit=20&country=GB&cursor=cDE6Nw>; rel="next"',
    }),
  },
  createShelter: {
    ...tagged,
    scope: "pets:write",
    method: "post",
    path: "/shelters",
    idempotent: true,
    summary: "Add a shelter (beta)",
    description:
      "Adds a shelter, owned by the account of the key that sends it. An account holds at most Free 1, Pro 5, Business 50, Enterprise 500 shelters: the next gives 409 `limit_reached` (a lowered plan keeps the shelters it has). `latitude` and `longitude` are required: the service does not geocode addresses.",
    request: {
      body: jsonBody(NewShelterSchema),
    },
    responses: {
      201: createdReply(
        "The shelter was added.",
        ShelterSchema,
        "Address of the new shelter.",
        "/v1/shelters/7",
      ),
      ...errorResponses([
        400,
        401,
        {
          status: 409,
          codes: ["limit_reached"],
          message: messages.limitReached(1, "shelters", "delete one or move to a larger plan"),
        },
        413,
        415,
        422,
        ...ANY_OPERATION,
      ]),
    },
  },
  getShelter: {
    ...managing,
    scope: "pets:read",
    method: "get",
    path: "/shelters/{shelterId}",
    summary: "Fetch one shelter (beta)",
    description:
      "One shelter; its `ETag` is its `etag`. A `shelterId` that is not a valid identifier gives 404, like one that does not exist or was deleted.",
    request: { params: ShelterIdParamsSchema },
    responses: readReplies("The shelter.", ShelterSchema, notFound),
  },
  updateShelter: {
    ...managing,
    scope: "pets:write",
    method: "patch",
    path: "/shelters/{shelterId}",
    summary: "Change a shelter (beta)",
    description: `Changes the fields sent, as a merge patch (\`application/json\` or \`application/merge-patch+json\`): \`null\` clears \`phone\`, \`website\` or an address's \`street\`, \`region\` or \`postalCode\`, and gives 400 for the others; \`address\` merges member by member, so \`{"address":{"street":null}}\` clears only the street. A change that sets what the shelter already has answers 200 with the same \`etag\` and writes nothing. ${CONDITIONAL}`,
    request: {
      params: ShelterIdParamsSchema,
      headers: IfMatchHeaderSchema,
      body: patchBody(ShelterPatchSchema),
    },
    responses: {
      200: changedReply("The shelter after the change.", ShelterSchema),
      ...errorResponses([
        400,
        401,
        notOwner,
        notFound,
        stale,
        413,
        patchTypeRefused,
        ...ANY_OPERATION,
      ]),
    },
  },
  deleteShelter: {
    ...managing,
    scope: "pets:write",
    method: "delete",
    path: "/shelters/{shelterId}",
    summary: "Delete a shelter (beta)",
    description: `Deletes the shelter: from then on it is 404, never listed, and no animal can be put in it; its id is never given to another. While an animal that is not deleted lives there, 409 \`shelter_in_use\`. ${CONDITIONAL}`,
    request: { params: ShelterIdParamsSchema, headers: IfMatchHeaderSchema },
    responses: {
      204: deletedReply,
      ...errorResponses([
        400,
        401,
        notOwner,
        notFound,
        { status: 409, codes: ["shelter_in_use"], message: messages.shelterInUse },
        stale,
        ...ANY_OPERATION,
      ]),
    },
  },
});
