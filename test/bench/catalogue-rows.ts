import { WITH_HEADERS_PATH } from "./floor-paths.ts";
import { type Flow, makeThen, one, walk } from "./flows.ts";
import { SEARCHED_NAME } from "./pet-names.ts";
import { andWithHeaders, type BenchRow, sameRequests } from "./row-kinds.ts";

/**
 * The rows of the endpoints that find animals and manage the catalogue:
 * the listing's finders, editing and deleting an animal, and categories.
 * Every write sends what makes it write: a name nothing has had, an
 * animal not yet deleted.
 */

/**
 * A name no record has yet, whichever server or flow asks: each edit then
 * writes, and no two categories a run makes share a name.
 */
let named = 0;
export const freshName = (what: string) => `${what} ${++named}`;

/**
 * Renames the records at `path`/{id} in turn, each to a name no record has
 * had, without If-Match: every request writes, and two connections that
 * meet on one record both win, one after the other.
 */
const renames = (ids: readonly number[], path: string, what: string): Flow =>
  walk(
    "PATCH",
    ids,
    (id) => `${path}/${id}`,
    200,
    () => JSON.stringify({ name: freshName(what) }),
  );

const SEARCH = `q=${SEARCHED_NAME.toLowerCase()}`;

export const CATALOGUE_ROWS: readonly BenchRow[] = [
  {
    id: "search",
    label: `GET /v1/pets?${SEARCH}`,
    tier: "other",
    caller: "shopper",
    // One name in twenty: a page of 20 of the seeded animals' 500, and another after it.
    flow: () => one("GET", `/v1/pets?${SEARCH}`, 200),
    floors: andWithHeaders("listPets' search", () =>
      one("GET", `${WITH_HEADERS_PATH}?${SEARCH}`, 200),
    ),
  },
  {
    id: "by-id",
    label: "GET /v1/pets?id={id}",
    tier: "other",
    caller: "shopper",
    flow: ({ pets }) => walk("GET", pets, (id) => `/v1/pets?id=${id}`),
    floors: andWithHeaders("listPets' query by id", ({ pets }) =>
      walk("GET", pets, (id) => `${WITH_HEADERS_PATH}?id=${id}`),
    ),
  },
  {
    id: "update",
    label: "PATCH /v1/pets/{id}",
    tier: "other",
    caller: "shopper",
    flow: ({ editable }) => renames(editable, "/v1/pets", "Renamed"),
    floors: andWithHeaders("editPet's read and batch", ({ editable }) =>
      renames(editable, WITH_HEADERS_PATH, "Renamed"),
    ),
  },
  {
    id: "delete",
    label: "DELETE /v1/pets/{id}",
    tier: "other",
    caller: "shopper",
    flow: ({ departing }) => ({
      steps: [
        {
          method: "DELETE",
          expectStatus: 204,
          request: () => ({ path: `/v1/pets/${departing.nextPetId()}` }),
        },
      ],
      maxRequests: (connections) => departing.requestBudget(connections, 1),
    }),
    floors: sameRequests("removePet's read and batch"),
  },
  {
    id: "categories",
    label: "GET /v1/categories",
    tier: "other",
    caller: "shopper",
    flow: () => one("GET", "/v1/categories", 200),
    floors: sameRequests("listCategories' query"),
  },
  {
    id: "category",
    label: "GET /v1/categories/{id}",
    tier: "other",
    caller: "shopper",
    flow: ({ categories }) => walk("GET", categories, (id) => `/v1/categories/${id}`),
    floors: sameRequests("findCategory's query"),
  },
  {
    id: "category-churn",
    label: "POST /v1/categories + DELETE",
    tier: "other",
    caller: "shopper",
    // Made and deleted in one unit, so the live categories, which every
    // create and rename compares its name with, stay as many all run long.
    flow: () => ({
      steps: makeThen(
        { path: "/v1/categories", body: () => JSON.stringify({ name: freshName("Kind") }) },
        { method: "DELETE", expectStatus: 204, path: (id) => `/v1/categories/${id}` },
      ),
    }),
    floors: sameRequests("createCategory's batch; removeCategory's read and batch"),
  },
  {
    id: "category-rename",
    label: "PATCH /v1/categories/{id}",
    tier: "other",
    caller: "shopper",
    flow: ({ categories }) => renames(categories, "/v1/categories", "Renamed kind"),
    floors: sameRequests("editCategory's read and batch"),
  },
];
