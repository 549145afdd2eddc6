import { FLOOR_KEY_HASH } from "../order-animals.ts";

/**
 * The statements the real Worker's createPet, placeOrder and completeOrder send to D1,
 * as the same text with the same bindings, for the floor: what an adoption
 * cannot do without (one batch each), with no validation, auth or mapping.
 * test/worker/bench/floor-orders.test.ts checks the text against what the
 * Worker really sends.
 */

const ACCOUNT = `(SELECT "api_keys"."account_id" FROM "api_keys" WHERE "api_keys"."hash" = ?)`;
const iso = (column: string) =>
  `strftime('%Y-%m-%dT%H:%M:%S', ${column} / 1000, 'unixepoch') || printf('.%03dZ', ${column} % 1000)`;
const ORDER_COLUMNS = `"id", "pet_id", "status", ${iso(`"created_at"`)}, ${iso(`"updated_at"`)}`;
const PET_JSON = `json_object(?, "pets"."id", ?, "pets"."name", ?, "pets"."category_id", ?, "pets"."status")`;
const ORDER_JSON = `json_object(?, "orders"."id", ?, "orders"."pet_id", ?, "orders"."status", ?, ${iso(`"orders"."created_at"`)}, ?, ${iso(`"orders"."updated_at"`)})`;
const PET_KEYS = ["id", "name", "categoryId", "status"];
const ORDER_KEYS = ["id", "petId", "status", "createdAt", "updatedAt"];

/** An event row written from `from` where `where` holds, if the statement before changed one row. */
const eventSql = (accountId: string, data: string, from: string, where: string) =>
  `insert into "events" ("seq", "id", "type", "account_id", "data", "previous_status", "created_at", "dispatched_at", "claim_token", "claim_expires_at") select NULL as "seq", ? as "id", ? as "type", ${accountId} as "account_id", ${data} as "data", ? as "previous_status", CAST(round(unixepoch('subsec') * 1000) AS INTEGER) as "created_at", NULL as "dispatched_at", NULL as "claim_token", NULL as "claim_expires_at" from "${from}" where (${where} and changes() = 1)`;

/** The change's events that no endpoint wants, marked dispatched as they are written. */
const settleSql = (ids: number) =>
  `update "events" set "dispatched_at" = "events"."created_at" where ("events"."id" in (${Array(ids).fill("?").join(", ")}) and NOT EXISTS (SELECT 1 FROM "webhooks" WHERE "webhooks"."after_seq" < "events"."seq"
  AND ("events"."account_id" IS NULL OR "webhooks"."account_id" = "events"."account_id")
  AND EXISTS (SELECT 1 FROM json_each("webhooks"."types") AS wanted
    WHERE wanted.value = "events"."type"
      OR wanted.value = substr("events"."type", 1, instr("events"."type", '.')) || '*')))`;

/** Every change's last statement: whether events wait for dispatch (bound to limit 1). */
const EVENTS_WAITING_SQL = `select 1 from "events" where "events"."dispatched_at" is null limit ?`;

export const CREATE_SQL = [
  `insert into "pets" ("id", "name", "category_id", "status", "created_at") values (null, ?, ?, ?, ?) returning "id", "name", "category_id", "status"`,
  eventSql("?", PET_JSON, "pets", `"pets"."id" = last_insert_rowid()`),
  settleSql(1),
  EVENTS_WAITING_SQL,
] as const;

export const PLACE_SQL = [
  `update "pets" set "status" = ? where ("pets"."id" = ? and "pets"."status" = ? and ${ACCOUNT} is not null)`,
  `insert into "orders" ("id", "account_id", "pet_id", "status", "created_at", "updated_at") select NULL as "id", ${ACCOUNT} as "account_id", "id", 'placed' as "status", ? as "created_at", ? as "updated_at" from "pets" where ("pets"."id" = ? and changes() = 1) returning ${ORDER_COLUMNS}`,
  eventSql("?", PET_JSON, "pets", `"pets"."id" = ?`),
  eventSql(
    `"orders"."account_id"`,
    ORDER_JSON,
    "orders",
    `("orders"."pet_id" = ? and "orders"."status" = ?)`,
  ),
  settleSql(2),
  `select "status" from "pets" where "pets"."id" = ?`,
  EVENTS_WAITING_SQL,
] as const;

export const COMPLETE_SQL = [
  `update "pets" set "status" = ? where ("pets"."id" in (select "pet_id" from "orders" where (("orders"."id" = ? and "orders"."account_id" = ${ACCOUNT}) and "orders"."status" = ?)) and "pets"."status" = ?)`,
  `update "orders" set "status" = ?, "updated_at" = ? where ((("orders"."id" = ? and "orders"."account_id" = ${ACCOUNT}) and "orders"."status" = ?) and changes() = 1) returning ${ORDER_COLUMNS}`,
  eventSql(
    "?",
    PET_JSON,
    "pets",
    `"pets"."id" = (select "pet_id" from "orders" where "orders"."id" = ?)`,
  ),
  eventSql(`"orders"."account_id"`, ORDER_JSON, "orders", `"orders"."id" = ?`),
  settleSql(2),
  `select ${ORDER_COLUMNS} from "orders" where ("orders"."id" = ? and "orders"."account_id" = ${ACCOUNT})`,
  EVENTS_WAITING_SQL,
] as const;

const ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** An event id as the Worker makes one. */
function eventId(): string {
  let id = "evt_";
  for (const byte of crypto.getRandomValues(new Uint8Array(26))) id += ID_ALPHABET[byte & 31];
  return id;
}

/** createPet's batch: the animal, its event, the settlement, the events probe. */
export function createBatch(
  db: D1Database,
  pet: { name: string; categoryId: number; status: string },
  now: number,
): D1PreparedStatement[] {
  const [insertPet, petEvent, settle, eventsWaiting] = CREATE_SQL;
  const id = eventId();
  return [
    db.prepare(insertPet).bind(pet.name, pet.categoryId, pet.status, now),
    db.prepare(petEvent).bind(id, "pet.created", null, ...PET_KEYS, null),
    db.prepare(settle).bind(id),
    db.prepare(eventsWaiting).bind(1),
  ];
}

/** placeOrder's batch: the animal to pending, the order, their events, the animal read back, the probe. */
export function placeBatch(db: D1Database, petId: number, now: number): D1PreparedStatement[] {
  const [reservePet, insertOrder, petEvent, orderEvent, settle, readPet, eventsWaiting] = PLACE_SQL;
  const ids = [eventId(), eventId()] as const;
  return [
    db.prepare(reservePet).bind("pending", petId, "available", FLOOR_KEY_HASH),
    db.prepare(insertOrder).bind(FLOOR_KEY_HASH, now, now, petId),
    db.prepare(petEvent).bind(ids[0], "pet.status_changed", null, ...PET_KEYS, "available", petId),
    db.prepare(orderEvent).bind(ids[1], "order.placed", ...ORDER_KEYS, null, petId, "placed"),
    db.prepare(settle).bind(...ids),
    db.prepare(readPet).bind(petId),
    db.prepare(eventsWaiting).bind(1),
  ];
}

/** completeOrder's batch: the animal to sold, the order, their events, the order read back, the probe. */
export function completeBatch(db: D1Database, orderId: number, now: number): D1PreparedStatement[] {
  const [movePet, moveOrder, petEvent, orderEvent, settle, readOrder, eventsWaiting] = COMPLETE_SQL;
  const ids = [eventId(), eventId()] as const;
  return [
    db.prepare(movePet).bind("sold", orderId, FLOOR_KEY_HASH, "placed", "pending"),
    db.prepare(moveOrder).bind("completed", now, orderId, FLOOR_KEY_HASH, "placed"),
    db.prepare(petEvent).bind(ids[0], "pet.status_changed", null, ...PET_KEYS, "pending", orderId),
    db.prepare(orderEvent).bind(ids[1], "order.completed", ...ORDER_KEYS, null, orderId),
    db.prepare(settle).bind(...ids),
    db.prepare(readOrder).bind(orderId, FLOOR_KEY_HASH),
    db.prepare(eventsWaiting).bind(1),
  ];
}
