import { FLOOR_KEY_HASH } from "../order-animals.ts";

/**
 * The statements the real Worker's placeOrder and completeOrder send to D1,
 * as the same text with the same bindings, for the floor: what an adoption
 * cannot do without (one batch each), with no validation, auth or mapping.
 * test/worker/bench/floor-orders.test.ts checks the text against what the
 * Worker really sends.
 */

const ACCOUNT = `(SELECT "api_keys"."account_id" FROM "api_keys" WHERE "api_keys"."hash" = ?)`;
const ORDER_COLUMNS = `"id", "pet_id", "status", "created_at", "updated_at"`;

/** Every change's last statement: whether events wait for dispatch (bound to limit 1). */
export const EVENTS_WAITING_SQL = `select 1 from "events" where "events"."dispatched_at" is null limit ?`;

export const PLACE_SQL = [
  `update "pets" set "status" = ? where ("pets"."id" = ? and "pets"."status" = ? and ${ACCOUNT} is not null)`,
  `insert into "orders" ("id", "account_id", "pet_id", "status", "created_at", "updated_at") select NULL as "id", ${ACCOUNT} as "account_id", "id", 'placed' as "status", ? as "created_at", ? as "updated_at" from "pets" where ("pets"."id" = ? and changes() = 1) returning ${ORDER_COLUMNS}`,
  `select "status" from "pets" where "pets"."id" = ?`,
  EVENTS_WAITING_SQL,
] as const;

export const COMPLETE_SQL = [
  `update "pets" set "status" = ? where ("pets"."id" in (select "pet_id" from "orders" where (("orders"."id" = ? and "orders"."account_id" = ${ACCOUNT}) and "orders"."status" = ?)) and "pets"."status" = ?)`,
  `update "orders" set "status" = ?, "updated_at" = ? where ((("orders"."id" = ? and "orders"."account_id" = ${ACCOUNT}) and "orders"."status" = ?) and changes() = 1) returning ${ORDER_COLUMNS}`,
  `select ${ORDER_COLUMNS} from "orders" where ("orders"."id" = ? and "orders"."account_id" = ${ACCOUNT})`,
  EVENTS_WAITING_SQL,
] as const;

/** placeOrder's batch: the animal to pending, then the order, the animal read back, the events probe. */
export function placeBatch(db: D1Database, petId: number, now: number): D1PreparedStatement[] {
  const [reservePet, insertOrder, readPet, eventsWaiting] = PLACE_SQL;
  return [
    db.prepare(reservePet).bind("pending", petId, "available", FLOOR_KEY_HASH),
    db.prepare(insertOrder).bind(FLOOR_KEY_HASH, now, now, petId),
    db.prepare(readPet).bind(petId),
    db.prepare(eventsWaiting).bind(1),
  ];
}

/** completeOrder's batch: the animal to sold, then the order, the order read back, the events probe. */
export function completeBatch(db: D1Database, orderId: number, now: number): D1PreparedStatement[] {
  const [movePet, moveOrder, readOrder, eventsWaiting] = COMPLETE_SQL;
  return [
    db.prepare(movePet).bind("sold", orderId, FLOOR_KEY_HASH, "placed", "pending"),
    db.prepare(moveOrder).bind("completed", now, orderId, FLOOR_KEY_HASH, "placed"),
    db.prepare(readOrder).bind(orderId, FLOOR_KEY_HASH),
    db.prepare(eventsWaiting).bind(1),
  ];
}
