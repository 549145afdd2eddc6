import { keyOwner, type Owner } from "../../../src/accounts/owner.ts";
import { type Direction, decodeCursor, positionIn } from "../../../src/api/cursor.ts";
import { deprecationLink, deprecationsIn, sunsetDate } from "../../../src/api/deprecation.ts";
import { prefixQuery } from "../../../src/api/search-words.ts";
import { changerOf } from "../../../src/catalogue/ownership.ts";
import {
  createCategory,
  findCategory,
  listCategories,
} from "../../../src/categories/categories.queries.ts";
import { editCategory, removeCategory } from "../../../src/categories/category-edits.ts";
import { type Database, preparedQueries, runOne } from "../../../src/db/database.ts";
import { listEvents } from "../../../src/events/events.queries.ts";
import { type EventTypeSelector, kindsOf } from "../../../src/events/events.schemas.ts";
import {
  findOrder,
  listOrders,
  moveOrder,
  type OrderMove,
  placeOrder,
} from "../../../src/orders/orders.queries.ts";
import type { OrderStatus } from "../../../src/orders/orders.schemas.ts";
import { createPet, insertPet, newPetValues } from "../../../src/pets/pet-changes.queries.ts";
import { editPet, removePet } from "../../../src/pets/pet-edits.ts";
import type { PetFinders } from "../../../src/pets/pet-finders.ts";
import { listPets } from "../../../src/pets/pet-listing.queries.ts";
import {
  type PetAge,
  type PetSex,
  type PetSize,
  YES_NO_FIELDS,
  type YesNoField,
} from "../../../src/pets/pet-profile.schemas.ts";
import { findPet, petShape } from "../../../src/pets/pets.queries.ts";
import { petRoutes } from "../../../src/pets/pets.routes.ts";
import type { NewPet, PetPatch, PetStatus } from "../../../src/pets/pets.schemas.ts";
import { listPhotos } from "../../../src/photos/pet-photos.queries.ts";
import { photoTypeOf } from "../../../src/photos/photo-formats.ts";
import { addPhoto } from "../../../src/photos/photo-uploads.ts";
import type { Services } from "../../../src/services.ts";
import {
  changeWebhook,
  deleteWebhook,
  registerWebhook,
  rotateWebhookSecret,
} from "../../../src/webhooks/endpoint-changes.ts";
import { findWebhook, listWebhooks } from "../../../src/webhooks/webhooks.queries.ts";
import { INSERT_ONLY_PATH, WITH_HEADERS_PATH } from "../floor-paths.ts";
import { CHANGE_HEADERS, pageWithHeaders, READ_HEADERS } from "./api-headers.ts";
import {
  changeOf,
  type Floor,
  type FloorContext,
  hooks,
  id,
  now,
  page,
  shopper,
} from "./floor-requests.ts";
import { listedPetsNear } from "./near-floors.ts";
import { nearRowsFloors } from "./near-rows-floors.ts";
import { shelterFloors } from "./shelter-floors.ts";

/**
 * The floors: for each `/v1` endpoint the bench measures, at its method and
 * path, what the endpoint sends to storage and nothing else: its own
 * statements and changes and its Durable Object calls, imported from src/,
 * on the services every request of the API gets. No validation, no key, no
 * limiter, no response chain; the inputs are read as the rows send them.
 * Beside those, create's INSERT alone, and the listing (its finders too),
 * the fetch of one animal and an animal's edit sending the API's headers,
 * each at a path of its own (floor-paths.ts). The shelters' floors are in
 * shelter-floors.ts, the page near a place the API's way and the
 * straightforward way, with the rows each reads, in near-rows-floors.ts.
 * The floor acts for the callers' keys its database holds (callers.ts).
 */

const hooksOwner: Owner = { kind: "key", apiKeyHash: hooks };

/** Refuses a request for an endpoint the hooks account does not own, as the API does. */
async function ownHook(c: FloorContext, { db }: Services): Promise<Response | undefined> {
  const found = await findWebhook(db, hooksOwner, id(c, "webhookId"));
  return found ? undefined : c.json({ code: "not_found" }, 404);
}

const insertOnly = preparedQueries(insertPet);

const [getPetNotice] = deprecationsIn([petRoutes]);
if (!getPetNotice)
  throw new Error("the fetch of one animal is no longer deprecated: update its floor");

/** A yes/no filter's value as the API reads it: undefined when not given. */
function yesNoOf(c: FloorContext): Partial<Record<YesNoField, boolean>> {
  return Object.fromEntries(
    YES_NO_FIELDS.flatMap((field) => {
      const value = c.req.query(field);
      return value === undefined ? [] : [[field, value === "true"]];
    }),
  );
}

/** The listing's filters, read as the API reads them. */
function findersOf(c: FloorContext): PetFinders {
  const q = c.req.query("q");
  return {
    statuses: c.req.queries("status") as PetStatus[] | undefined,
    categoryIds: c.req.queries("categoryId")?.map(Number),
    ids: c.req.queries("id")?.map(Number),
    words: q === undefined ? undefined : prefixQuery(q),
    shelterIds: c.req.queries("shelterId")?.map(Number),
    breeds: c.req.queries("breed")?.map((value) => prefixQuery(value) ?? ""),
    ages: c.req.queries("age") as PetAge[] | undefined,
    sizes: c.req.queries("size") as PetSize[] | undefined,
    sex: c.req.query("sex") as PetSex | undefined,
    yesNo: yesNoOf(c),
  };
}

/** The listing's page, near a place when `near` is given, and where the next starts. */
async function listedPets(c: FloorContext, db: Database) {
  const finders = findersOf(c);
  const near = await listedPetsNear(c, db, finders);
  if (near) return near;
  const direction = (c.req.query("direction") ?? "asc") as Direction;
  const cursor = c.req.query("cursor");
  return listPets(db, {
    ...finders,
    limit: page(c).limit,
    direction,
    after: cursor === undefined ? undefined : positionIn(cursor, direction),
  });
}

/** An animal's edit, answered bare or with the headers the API's reply carries. */
function edit(withHeaders: boolean): Floor {
  return async (c, services) => {
    const request = changeOf(c, services, "petId");
    const outcome = await editPet(services.db, request, await c.req.json<PetPatch>());
    if (!("pet" in outcome)) return c.json(outcome, 409);
    const { pet } = outcome;
    return withHeaders ? c.json(pet, 200, { ...CHANGE_HEADERS, ETag: pet.etag }) : c.json(pet, 200);
  };
}

/** A placed order's move, answered as the API answers it. */
function move(to: OrderMove): Floor {
  return async (c, { db }) => {
    const request = { apiKeyHash: shopper, orderId: id(c, "orderId"), now: now() };
    const outcome = await moveOrder(db, to, request);
    return outcome.kind === "moved" ? c.json(outcome.order, 200) : c.json(outcome, 409);
  };
}

/** By method and path, as the Worker routes them (see floor-worker.ts). */
export const floors: Record<string, Floor> = {
  "GET /v1/pets": async (c, { db }) => c.json((await listedPets(c, db)).pets, 200),
  "GET /v1/pets/:petId": async (c, { db }) => {
    const pet = await findPet(db, id(c, "petId"));
    return pet ? c.json(pet, 200) : c.json({ code: "not_found" }, 404);
  },
  [`GET ${WITH_HEADERS_PATH}`]: async (c, { db }) => {
    const { pets, next } = await listedPets(c, db);
    return pageWithHeaders(c, pets, next);
  },
  [`GET ${WITH_HEADERS_PATH}/:petId`]: async (c, { db, config }) => {
    const pet = await findPet(db, id(c, "petId"));
    if (!pet) return c.json({ code: "not_found" }, 404);
    const { deprecatedAt, sunsetAt } = config.deprecations.getPet;
    return c.json(pet, 200, {
      ...READ_HEADERS,
      ETag: pet.etag,
      Deprecation: `@${Math.floor(deprecatedAt / 1000)}`,
      Sunset: sunsetDate(sunsetAt),
      Link: deprecationLink(getPetNotice, { petId: String(pet.id) }),
    });
  },
  "POST /v1/pets": async (c, { db }) => {
    const owner = { owner: keyOwner({ hash: shopper }), now: now() };
    const outcome = await createPet(db, await c.req.json<NewPet>(), owner, undefined);
    return c.json(outcome.kind === "made" ? outcome.body : outcome, 201);
  },
  [`POST ${INSERT_ONLY_PATH}`]: async (c, { db }) => {
    const owner = { owner: keyOwner({ hash: shopper }), now: now() };
    const values = newPetValues(await c.req.json<NewPet>(), owner);
    const [row] = await runOne(db, insertOnly(db), values);
    return c.json(row && petShape.render(row), 201);
  },
  "PATCH /v1/pets/:petId": edit(false),
  [`PATCH ${WITH_HEADERS_PATH}/:petId`]: edit(true),
  "DELETE /v1/pets/:petId": async (c, services) => {
    const outcome = await removePet(services.db, changeOf(c, services, "petId"), now());
    return outcome.kind === "deleted" ? c.body(null, 204) : c.json(outcome, 409);
  },
  "GET /v1/categories": async (c, { db }) => {
    const found = await listCategories(db, page(c));
    return c.json(found.categories, 200);
  },
  "GET /v1/categories/:categoryId": async (c, { db }) => {
    const category = await findCategory(db, id(c, "categoryId"));
    return category ? c.json(category, 200) : c.json({ code: "not_found" }, 404);
  },
  "POST /v1/categories": async (c, { db }) => {
    const { name } = await c.req.json<{ name: string }>();
    const made = await createCategory(db, { name, apiKeyHash: shopper, now: now() });
    return made.kind === "made" ? c.json(made.category, 201) : c.json(made, 409);
  },
  "PATCH /v1/categories/:categoryId": async (c, services) => {
    const { name } = await c.req.json<{ name: string }>();
    const outcome = await editCategory(services.db, changeOf(c, services, "categoryId"), name);
    return "category" in outcome ? c.json(outcome.category, 200) : c.json(outcome, 409);
  },
  "DELETE /v1/categories/:categoryId": async (c, services) => {
    const outcome = await removeCategory(services.db, changeOf(c, services, "categoryId"), now());
    return outcome.kind === "deleted" ? c.body(null, 204) : c.json(outcome, 409);
  },
  "GET /v1/store/orders": async (c, { db }) => {
    const status = c.req.query("status") as OrderStatus | undefined;
    const orders = await listOrders(db, { ...page(c), status, apiKeyHash: shopper });
    return c.json(orders.orders, 200);
  },
  "POST /v1/store/orders": async (c, { db }) => {
    const { petId } = await c.req.json<{ petId: number }>();
    const outcome = await placeOrder(db, { apiKeyHash: shopper, petId, now: now() }, undefined);
    return outcome.kind === "made" ? c.json(outcome.body, 201) : c.json(outcome, 409);
  },
  "GET /v1/store/orders/:orderId": async (c, { db }) => {
    const order = await findOrder(db, shopper, id(c, "orderId"));
    return order ? c.json(order, 200) : c.json({ code: "not_found" }, 404);
  },
  "POST /v1/store/orders/:orderId/complete": move("complete"),
  "POST /v1/store/orders/:orderId/cancel": move("cancel"),
  "GET /v1/events": async (c, { db }) => {
    const type = c.req.query("type") as EventTypeSelector | undefined;
    const { limit, afterId } = page(c);
    const events = await listEvents(db, {
      apiKeyHash: shopper,
      types: type === undefined ? undefined : kindsOf(type),
      afterSeq: afterId,
      limit,
      now: now(),
    });
    return c.json(events.events, 200);
  },
  "POST /v1/pets/:petId/photos": async (c, services) => {
    const upload = {
      petId: id(c, "petId"),
      contentType: photoTypeOf(c.req.header("Content-Type")) ?? "image/jpeg",
      bytes: await c.req.arrayBuffer(),
      origin: services.config.publicOrigin ?? new URL(c.req.url).origin,
      changer: changerOf({ hash: shopper }, services.config),
      now: now(),
    };
    const outcome = await addPhoto(services, upload, undefined);
    return outcome.kind === "made" ? c.json(outcome.body, 201) : c.json(outcome, 409);
  },
  "GET /v1/pets/:petId/photos": async (c, { db }) => {
    const photos = await listPhotos(db, id(c, "petId"));
    return photos ? c.json(photos, 200) : c.json({ code: "not_found" }, 404);
  },
  "GET /photos/:photoId": async (c, { photos }) => {
    const photo = await photos.get(c.req.param("photoId") ?? "", true);
    if (!photo?.body) return c.json({ code: "not_found" }, 404);
    return new Response(photo.body, { headers: { "Content-Type": photo.contentType } });
  },
  ...shelterFloors,
  ...nearRowsFloors,
  "GET /v1/webhooks": async (c, { db }) => c.json(await listWebhooks(db, hooksOwner), 200),
  "GET /v1/webhooks/:webhookId": async (c, { db }) => {
    const webhook = await findWebhook(db, hooksOwner, id(c, "webhookId"));
    return webhook ? c.json(webhook, 200) : c.json({ code: "not_found" }, 404);
  },
  "POST /v1/webhooks": async (c, services) => {
    const { url, types } = await c.req.json<{ url: string; types: EventTypeSelector[] }>();
    const changer = { kind: "key", apiKeyHash: hooks, claim: undefined } as const;
    const request = { changer, url, types, now: now() };
    const outcome = await registerWebhook(services, request);
    return outcome.kind === "made" ? c.json(outcome.body, 201) : c.json(outcome, 409);
  },
  "PATCH /v1/webhooks/:webhookId": async (c, services) => {
    const change = await c.req.json<{ types?: EventTypeSelector[] }>();
    const webhook = await changeWebhook(services, hooksOwner, id(c, "webhookId"), change);
    return webhook ? c.json(webhook, 200) : c.json({ code: "not_found" }, 404);
  },
  "DELETE /v1/webhooks/:webhookId": async (c, services) => {
    const deleted = await deleteWebhook(services, hooksOwner, id(c, "webhookId"));
    return deleted ? c.body(null, 204) : c.json({ code: "not_found" }, 404);
  },
  "POST /v1/webhooks/:webhookId/rotate-secret": async (c, services) => {
    const changer = { kind: "key", apiKeyHash: hooks, claim: undefined } as const;
    const rotation = { changer, id: id(c, "webhookId") };
    const outcome = await rotateWebhookSecret(services, { ...rotation, now: now() });
    return outcome?.kind === "made"
      ? c.json(outcome.body, 200)
      : c.json({ code: "not_found" }, 404);
  },
  "GET /v1/webhooks/:webhookId/deliveries": async (c, services) => {
    const refused = await ownHook(c, services);
    if (refused) return refused;
    const cursor = c.req.query("cursor");
    const deliveries = await services.webhookEndpoints.deliveries(id(c, "webhookId"), {
      beforeId: cursor === undefined ? undefined : decodeCursor(cursor),
      limit: page(c).limit,
    });
    return c.json(deliveries.deliveries, 200);
  },
  "POST /v1/webhooks/:webhookId/test": async (c, services) => {
    const refused = await ownHook(c, services);
    if (refused) return refused;
    return c.json(await services.webhookEndpoints.sendTest(id(c, "webhookId")), 202);
  },
  "POST /v1/webhooks/:webhookId/deliveries/:deliveryId/retry": async (c, services) => {
    const refused = await ownHook(c, services);
    if (refused) return refused;
    const endpoints = services.webhookEndpoints;
    const delivery = await endpoints.retry(id(c, "webhookId"), id(c, "deliveryId"));
    return delivery ? c.json(delivery, 202) : c.json({ code: "not_found" }, 404);
  },
  "POST /v1/webhooks/:webhookId/recover": async (c, services) => {
    const refused = await ownHook(c, services);
    if (refused) return refused;
    const { since } = await c.req.json<{ since: string }>();
    const queued = await services.webhookEndpoints.recover(id(c, "webhookId"), Date.parse(since));
    return c.json({ queued }, 202);
  },
};
