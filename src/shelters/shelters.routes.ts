import { nextPageLinkHeader } from "../api/pagination.ts";
import { type DocumentedError, errorResponses, jsonReply } from "../api/responses.ts";
import { type ApiRoute, apiRoutes } from "../api/route-table.ts";
import {
  ListSheltersQuerySchema,
  SHELTER_NOT_FOUND,
  ShelterIdParamsSchema,
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

const notFound: DocumentedError = [404, SHELTER_NOT_FOUND];

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
    request: { query: ListSheltersQuerySchema },
    responses: {
      200: jsonReply("A page of shelters (possibly empty).", SheltersSchema, {
        Link: nextPageLinkHeader(
          '<https://api.petstore.example.com/v1/shelters?limit=20&country=GB&cursor=cDE6Nw>; rel="next"',
        ),
      }),
      ...errorResponses([400, 401, 429, 500, 503]),
    },
  },
  getShelter: {
    ...tagged,
    invalidIdMessage: SHELTER_NOT_FOUND,
    scope: "pets:read",
    method: "get",
    path: "/shelters/{shelterId}",
    summary: "Fetch one shelter (beta)",
    description:
      "One shelter; its `ETag` is its `etag`. A `shelterId` that is not a valid identifier gives 404, like one that does not exist or was deleted.",
    request: { params: ShelterIdParamsSchema },
    responses: {
      200: jsonReply("The shelter.", ShelterSchema),
      ...errorResponses([401, notFound, 429, 500, 503]),
    },
  },
});
