import { CATALOGUE_ROWS } from "./catalogue-rows.ts";
import { INSERT_ONLY_PATH, WITH_HEADERS_PATH } from "./floor-paths.ts";
import { type Flow, makeThen, one, type Send, walk } from "./flows.ts";
import { petName } from "./pet-names.ts";
import { BENCH_PHOTO } from "./photo-places.ts";
import { andWithHeaders, type BenchRow, type Seeded, sameRequests } from "./row-kinds.ts";
import type { AnimalWalk } from "./seeded-animals.ts";
import { SHELTER_ROWS } from "./shelter-rows.ts";

/**
 * What `npm run bench` measures: one row per `/v1` endpoint, each the
 * endpoint's requests beside the same requests to its floor, a bare Worker
 * (floor/floors.ts) that runs the endpoint's own D1 statements and
 * Durable Object calls and nothing else, at the same path. Free of any
 * runtime's types: the Node bench and the Worker tests both read it.
 *
 * The rows of the catalogue's finders, edits and categories are in
 * catalogue-rows.ts, those of shelters and the profile's finders in
 * shelter-rows.ts; the shape of a row is in row-kinds.ts.
 *
 * To add a row: add the endpoint here (or beside its kin), and its floor to
 * floor/floors.ts at the endpoint's method and path;
 * test/worker/bench/floors.test.ts then checks that the floor answers as
 * the endpoint does.
 */

const PET_STATUSES = ["available", "pending", "sold"] as const;

/** The body of the `index`th animal the bench adds. */
export function newPetBody(index: number): string {
  return JSON.stringify({
    name: petName(index),
    categoryId: (index % 7) + 1,
    status: PET_STATUSES[index % PET_STATUSES.length],
  });
}

/** The kinds the hooks account's endpoints want: its own orders', and it never orders. */
export const HOOK_TYPES = ["order.*"];

/** An order for the next available animal, then its `move`; each unit uses one animal up. */
function orderThen(move: "complete" | "cancel", adoptable: AnimalWalk): Flow {
  const orders = "/v1/store/orders";
  return {
    steps: makeThen(
      { path: orders, body: () => JSON.stringify({ petId: adoptable.nextPetId() }) },
      { method: "POST", expectStatus: 200, path: (id) => `${orders}/${id}/${move}` },
    ),
    maxRequests: (connections) => adoptable.requestBudget(connections, 2),
  };
}

const NEW_PET = newPetBody(0);
const hook = (seeded: Seeded, index: number) => {
  const id = seeded.webhooks[index];
  if (id === undefined) throw new Error(`no webhook endpoint ${index + 1} was seeded`);
  return `/v1/webhooks/${id}`;
};

/** Deletes the hooks account's endpoints that seeding did not make. */
async function deleteUnseededHooks(send: Send, seeded: Seeded): Promise<void> {
  const listed = await send({ caller: "hooks", method: "GET", path: "/v1/webhooks" });
  const ids = (JSON.parse(listed.body) as { id: number }[]).map((webhook) => webhook.id);
  for (const id of ids.filter((id) => !seeded.webhooks.includes(id))) {
    await send({ caller: "hooks", method: "DELETE", path: `/v1/webhooks/${id}` });
  }
}

export const ROWS: readonly BenchRow[] = [
  {
    id: "list",
    label: "GET /v1/pets?limit=20",
    tier: "hot",
    caller: "shopper",
    flow: () => one("GET", "/v1/pets?limit=20", 200),
    floors: andWithHeaders("listPets' query", () =>
      one("GET", `${WITH_HEADERS_PATH}?limit=20`, 200),
    ),
  },
  {
    id: "get",
    label: "GET /v1/pets/{id}",
    tier: "hot",
    caller: "shopper",
    flow: ({ pets }) => walk("GET", pets, (id) => `/v1/pets/${id}`),
    floors: andWithHeaders("findPet's query", ({ pets }) =>
      walk("GET", pets, (id) => `${WITH_HEADERS_PATH}/${id}`),
    ),
  },
  {
    id: "create",
    label: "POST /v1/pets",
    tier: "hot",
    caller: "shopper",
    flow: () => one("POST", "/v1/pets", 201, NEW_PET),
    floors: [
      { label: "createPet's batch: the INSERT, its event, the outbox" },
      {
        label: "the INSERT alone, as the chanfana template's create",
        flow: () => one("POST", INSERT_ONLY_PATH, 201, NEW_PET),
      },
    ],
  },
  {
    id: "list-status",
    label: "GET /v1/pets?status=available",
    tier: "other",
    caller: "shopper",
    flow: () => one("GET", "/v1/pets?status=available", 200),
    floors: sameRequests("listPets' query by status"),
  },
  ...CATALOGUE_ROWS,
  ...SHELTER_ROWS,
  {
    id: "adopt",
    label: "POST /v1/store/orders + complete",
    tier: "other",
    caller: "shopper",
    flow: ({ adoptable }) => orderThen("complete", adoptable),
    floors: sameRequests("placeOrder's and completeOrder's batches"),
  },
  {
    id: "cancel",
    label: "POST /v1/store/orders + cancel",
    tier: "other",
    caller: "shopper",
    flow: ({ adoptable }) => orderThen("cancel", adoptable),
    floors: sameRequests("placeOrder's and cancelOrder's batches"),
  },
  {
    id: "orders",
    label: "GET /v1/store/orders",
    tier: "other",
    caller: "shopper",
    flow: () => one("GET", "/v1/store/orders", 200),
    floors: sameRequests("listOrders' query"),
  },
  {
    id: "order",
    label: "GET /v1/store/orders/{id}",
    tier: "other",
    caller: "shopper",
    flow: ({ orders }) => walk("GET", orders, (id) => `/v1/store/orders/${id}`),
    floors: sameRequests("findOrder's query"),
  },
  {
    id: "events",
    label: "GET /v1/events",
    tier: "other",
    caller: "shopper",
    flow: () => one("GET", "/v1/events", 200),
    floors: sameRequests("listEvents' query"),
  },
  {
    id: "webhooks",
    label: "GET /v1/webhooks",
    tier: "other",
    caller: "hooks",
    flow: () => one("GET", "/v1/webhooks", 200),
    floors: sameRequests("listWebhooks' query"),
  },
  {
    id: "webhook",
    label: "GET /v1/webhooks/{id}",
    tier: "other",
    caller: "hooks",
    flow: (seeded) => one("GET", hook(seeded, 0), 200),
    floors: sameRequests("findWebhook's query"),
  },
  {
    id: "webhook-churn",
    label: "POST /v1/webhooks + DELETE",
    tier: "other",
    caller: "hooks",
    // The account's cap of ten endpoints, less the two seeded.
    connections: 8,
    flow: () => ({
      steps: makeThen(
        {
          path: "/v1/webhooks",
          body: () => JSON.stringify({ url: "https://hooks.example.com/bench", types: HOOK_TYPES }),
        },
        { method: "DELETE", expectStatus: 204, path: (id) => `/v1/webhooks/${id}` },
      ),
    }),
    floors: sameRequests("the capped INSERT's batch; the DELETE and the object's forget"),
    tidy: deleteUnseededHooks,
  },
  {
    id: "webhook-update",
    label: "PATCH /v1/webhooks/{id}",
    tier: "other",
    caller: "hooks",
    flow: (seeded) => one("PATCH", hook(seeded, 1), 200, JSON.stringify({ types: HOOK_TYPES })),
    floors: sameRequests("updateWebhook's statement"),
  },
  {
    id: "webhook-rotate",
    label: "POST /v1/webhooks/{id}/rotate-secret",
    tier: "other",
    caller: "hooks",
    // One rotation of an endpoint at a time, as its owner rotates: rotations of
    // one endpoint at once read again until theirs commits, at many times the cost.
    connections: 2,
    flow: ({ webhooks }) => walk("POST", webhooks, (id) => `/v1/webhooks/${id}/rotate-secret`),
    floors: sameRequests("rotateSecret's read and batch"),
  },
  {
    id: "deliveries",
    label: "GET /v1/webhooks/{id}/deliveries",
    tier: "other",
    caller: "hooks",
    flow: (seeded) => one("GET", `${hook(seeded, 0)}/deliveries`, 200),
    floors: sameRequests("findWebhook's query and the endpoint object's page"),
  },
  {
    id: "webhook-test",
    label: "POST /v1/webhooks/{id}/test",
    tier: "other",
    caller: "hooks",
    flow: (seeded) => one("POST", `${hook(seeded, 0)}/test`, 202),
    floors: sameRequests("findWebhook's query and the endpoint object's test delivery"),
  },
  {
    id: "retry",
    label: "POST /v1/webhooks/{id}/deliveries/{id}/retry",
    tier: "other",
    caller: "hooks",
    flow: (seeded) =>
      walk("POST", seeded.deliveries, (id) => `${hook(seeded, 0)}/deliveries/${id}/retry`, 202),
    floors: sameRequests("findWebhook's query and the endpoint object's retry"),
  },
  {
    id: "recover",
    label: "POST /v1/webhooks/{id}/recover",
    tier: "other",
    caller: "hooks",
    flow: (seeded) =>
      one(
        "POST",
        `${hook(seeded, 0)}/recover`,
        202,
        JSON.stringify({ since: new Date(Date.now() - 3_600_000).toISOString() }),
      ),
    floors: sameRequests("findWebhook's query and the wanted events' query"),
  },
  {
    id: "photo-upload",
    label: "POST /v1/pets/{id}/photos, 200 KiB",
    tier: "other",
    caller: "shopper",
    flow: ({ photoPlaces }) => ({
      steps: [
        {
          method: "POST",
          expectStatus: 201,
          request: () => ({
            path: `/v1/pets/${photoPlaces.nextPetId()}/photos`,
            body: BENCH_PHOTO,
          }),
        },
      ],
      maxRequests: (connections) => photoPlaces.requestBudget(connections),
    }),
    floors: sameRequests("the pending row, the same bytes put to R2, the confirming batch"),
  },
  {
    id: "photos",
    label: "GET /v1/pets/{id}/photos",
    tier: "other",
    caller: "shopper",
    flow: ({ album }) => one("GET", `/v1/pets/${album.petId}/photos`, 200),
    floors: sameRequests("listPhotos' reads"),
  },
  {
    id: "photo-file",
    label: "GET /photos/{id}",
    tier: "other",
    caller: "shopper",
    flow: ({ album }) => one("GET", `/photos/${album.photoIds[0]}`, 200),
    floors: sameRequests("a bare read of the object, streamed from R2"),
  },
];
