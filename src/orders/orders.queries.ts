import { and, asc, eq, gt, inArray, isNotNull, sql } from "drizzle-orm";
import {
  type Database,
  insertedJson,
  isoInstant,
  jsonObject,
  millis,
  preparedQueries,
  runBatch,
  runOne,
} from "../db/database.ts";
import { orders, pets } from "../db/schema.ts";
import {
  type ChangeEvents,
  eventStatement,
  eventsWaitingStatement,
  newEventId,
  settleUnwantedStatement,
} from "../events/outbox.ts";
import {
  type IdempotencyClaim,
  keyedStatements,
  type Made,
  type Replayed,
  type Reused,
  runOnce,
  type Stored,
  storedIn,
} from "../idempotency/idempotency.queries.ts";
import { accountOfKey } from "../keys/keys.queries.ts";
import { petFields } from "../pets/pets.queries.ts";
import type { PetStatus } from "../pets/pets.schemas.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { Order, OrderStatus } from "./orders.schemas.ts";

/** An order as the API returns it (times as RFC 3339 UTC): the fields every read selects and SQL renders as JSON. */
const orderFields = {
  id: orders.id,
  petId: orders.petId,
  status: orders.status,
  createdAt: isoInstant(orders.createdAt),
  updatedAt: isoInstant(orders.updatedAt),
};

/** The event ids a change of an order binds: its animal's, then its own. */
const EVENT_IDS = ["petEventId", "orderEventId"] as const;

function eventIds() {
  return { petEventId: newEventId(), orderEventId: newEventId() };
}

/**
 * A placement's statements, for one D1 batch (one transaction). The animal
 * moves from `available` to `pending` (only for a key whose account D1
 * holds); the order is added only if it did, as `changes()` is the count of
 * the statement before. Concurrent placements for one animal serialise in
 * the database: exactly one moves it, the others change nothing. Its events
 * follow; then the animal's status is read back, to say why a refused
 * placement was refused.
 */
function placementStatements(db: Database) {
  const petId = sql.placeholder("petId");
  const account = accountOfKey(sql.placeholder("apiKeyHash"));
  return {
    change: {
      reservePet: db
        .update(pets)
        .set({ status: "pending" })
        .where(and(eq(pets.id, petId), eq(pets.status, "available"), isNotNull(account)))
        .prepare(),
      order: db
        .insert(orders)
        .select(
          db
            .select({
              id: sql<null>`NULL`.as("id"),
              accountId: sql<number>`${account}`.as("account_id"),
              petId: pets.id,
              status: sql<"placed">`'placed'`.as("status"),
              createdAt: millis("now").as("created_at"),
              updatedAt: millis("now").as("updated_at"),
            })
            .from(pets)
            .where(and(eq(pets.id, petId), sql`changes() = 1`)),
        )
        .returning(orderFields)
        .prepare(),
    },
    events: {
      petStatusChanged: eventStatement(db, {
        idName: "petEventId",
        type: "pet.status_changed",
        accountId: null,
        data: jsonObject(petFields),
        previousStatus: "available",
        from: pets,
        where: eq(pets.id, petId),
      }),
      // The one placed order of the animal (a unique index holds it so): the one just placed.
      orderPlaced: eventStatement(db, {
        idName: "orderEventId",
        type: "order.placed",
        accountId: sql<number>`${orders.accountId}`,
        data: jsonObject(orderFields),
        previousStatus: null,
        from: orders,
        where: and(eq(orders.petId, petId), eq(orders.status, "placed")),
      }),
      settled: settleUnwantedStatement(db, EVENT_IDS),
    },
    reads: {
      pet: db.select({ status: pets.status }).from(pets).where(eq(pets.id, petId)).prepare(),
      eventsWaiting: eventsWaitingStatement(db),
    },
  };
}

/**
 * A move's statements: the animal moves on from `pending` only while its
 * order is placed and the caller's, and the order moves only if the animal
 * did; their events follow, then the order is read back.
 */
function moveStatements(db: Database, to: { order: OrderStatus; pet: PetStatus }) {
  const orderId = sql.placeholder("orderId");
  const callers = and(
    eq(orders.id, orderId),
    eq(orders.accountId, accountOfKey(sql.placeholder("apiKeyHash"))),
  );
  const placed = and(callers, eq(orders.status, "placed"));
  return {
    movePet: db
      .update(pets)
      .set({ status: to.pet })
      .where(
        and(
          inArray(pets.id, db.select({ id: orders.petId }).from(orders).where(placed)),
          eq(pets.status, "pending"),
        ),
      )
      .prepare(),
    moved: db
      .update(orders)
      .set({ status: to.order, updatedAt: millis("updatedAt") })
      .where(and(placed, sql`changes() = 1`))
      .returning(orderFields)
      .prepare(),
    petStatusChanged: eventStatement(db, {
      idName: "petEventId",
      type: "pet.status_changed",
      accountId: null,
      data: jsonObject(petFields),
      previousStatus: "pending",
      from: pets,
      where: eq(
        pets.id,
        db.select({ id: orders.petId }).from(orders).where(eq(orders.id, orderId)),
      ),
    }),
    orderMoved: eventStatement(db, {
      idName: "orderEventId",
      type: `order.${to.order}` as "order.completed" | "order.cancelled",
      accountId: sql<number>`${orders.accountId}`,
      data: jsonObject(orderFields),
      previousStatus: null,
      from: orders,
      where: eq(orders.id, orderId),
    }),
    settled: settleUnwantedStatement(db, EVENT_IDS),
    current: db.select(orderFields).from(orders).where(callers).prepare(),
    eventsWaiting: eventsWaitingStatement(db),
  };
}

/** Each shape built once per database, so a request only binds values. */
function prepareQueries(db: Database) {
  const ownedByCaller = eq(orders.accountId, accountOfKey(sql.placeholder("apiKeyHash")));
  const page = (byStatus: boolean) =>
    db
      .select(orderFields)
      .from(orders)
      .where(
        and(
          ownedByCaller,
          gt(orders.id, sql.placeholder("afterId")),
          byStatus ? eq(orders.status, sql.placeholder("status")) : undefined,
        ),
      )
      .orderBy(asc(orders.id))
      .limit(sql.placeholder("limit"))
      .prepare();
  const placement = placementStatements(db);
  return {
    page: page(false),
    pageByStatus: page(true),
    find: db
      .select(orderFields)
      .from(orders)
      .where(and(ownedByCaller, eq(orders.id, sql.placeholder("id"))))
      .prepare(),
    place: { ...placement.change, ...placement.events, ...placement.reads },
    placeOnce: keyedStatements(db, placement, {
      status: 201,
      body: insertedJson(orders, orders.id, orderFields),
    }),
    complete: moveStatements(db, orderMoves.complete),
    cancel: moveStatements(db, orderMoves.cancel),
  };
}

/** The orders' prepared queries for a database (exported so a test can read their query plans). */
export const orderQueries = preparedQueries(prepareQueries);

export interface OrderPageQuery {
  /** The caller's key: its account's orders are listed. */
  apiKeyHash: string;
  limit: number;
  status: OrderStatus | undefined;
  afterId: number;
}

export interface OrderPage {
  orders: Order[];
  hasMore: boolean;
}

/** One page of the account's orders in ascending id order; one extra row tells whether another follows. */
export async function listOrders(db: Database, query: OrderPageQuery): Promise<OrderPage> {
  const { page, pageByStatus } = orderQueries(db);
  const values = {
    apiKeyHash: query.apiKeyHash,
    afterId: query.afterId,
    status: query.status,
    limit: query.limit + 1,
  };
  const rows = await guardStorage("D1", () =>
    runOne(db, query.status ? pageByStatus : page, values),
  );
  return { orders: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
}

/** The order, if it belongs to the account of the caller's key. */
export async function findOrder(
  db: Database,
  apiKeyHash: string,
  id: number,
): Promise<Order | undefined> {
  const [order] = await guardStorage("D1", () =>
    runOne(db, orderQueries(db).find, { apiKeyHash, id }),
  );
  return order;
}

/** A request to order an animal, for the account of the key that sent it. */
export interface Placement {
  apiKeyHash: string;
  petId: number;
  now: number;
}

/** Nothing changed: the animal is not available (its status), or does not exist (undefined). */
export interface PetUnavailable {
  kind: "refused";
  petStatus: PetStatus | undefined;
}

function refusalOrDefect(pet: { status: PetStatus } | undefined): PetUnavailable {
  if (pet?.status === "available") {
    // Every authenticated key has an account row; reaching this means the data is broken.
    throw new Error("no account owns the API key, so the animal could not be ordered");
  }
  return { kind: "refused", petStatus: pet?.status };
}

/**
 * Orders an available animal: it becomes `pending` and the order `placed`,
 * together with their events, or nothing at all. With a claim, the response
 * is stored with the Idempotency-Key in the same batch, so a retry replays
 * it even after the order has moved on; a refused placement stores nothing.
 */
export async function placeOrder(
  db: Database,
  placement: Placement,
  claim: IdempotencyClaim | undefined,
): Promise<((Made<Order> | Stored | PetUnavailable) & ChangeEvents) | Replayed | Reused> {
  const { place, placeOnce } = orderQueries(db);
  const values = { ...placement, ...eventIds() };
  if (claim === undefined) {
    const done = await guardStorage("D1", () => runBatch(db, place, values));
    const [order] = done.order;
    const eventsWaiting = done.eventsWaiting.length > 0;
    if (!order) return { ...refusalOrDefect(done.pet[0]), eventsWaiting };
    return { kind: "made", body: order, eventsWaiting };
  }
  return runOnce(db, claim, placeOnce, values, (done) => {
    const eventsWaiting = done.eventsWaiting.length > 0;
    if (done.order.length === 0) return { ...refusalOrDefect(done.pet[0]), eventsWaiting };
    return { ...storedIn(done.stored), eventsWaiting };
  });
}

/** The two moves of a placed order, and where each takes the order and its animal. */
export const orderMoves = {
  complete: { order: "completed", pet: "sold" },
  cancel: { order: "cancelled", pet: "available" },
} as const satisfies Record<string, { order: OrderStatus; pet: PetStatus }>;

export type OrderMove = keyof typeof orderMoves;

export interface MoveRequest {
  apiKeyHash: string;
  orderId: number;
  now: number;
}

export type MoveOutcome =
  | { kind: "moved"; order: Order }
  /** Nothing changed: the order is not `placed` (as it is now), or not the caller's to see (undefined). */
  | { kind: "refused"; current: Order | undefined };

/**
 * Completes or cancels a placed order of the caller's account, in one D1
 * batch: the animal moves on from `pending` only while its order is placed
 * and the caller's, and the order moves only if the animal did. A complete
 * racing a cancel: the first to commit moves both, the other finds the order
 * no longer placed and changes nothing. Then the order is read back.
 */
export async function moveOrder(
  db: Database,
  move: OrderMove,
  { apiKeyHash, orderId, now }: MoveRequest,
): Promise<MoveOutcome & ChangeEvents> {
  const values = { apiKeyHash, orderId, updatedAt: now, ...eventIds() };
  const done = await guardStorage("D1", () => runBatch(db, orderQueries(db)[move], values));
  const [moved] = done.moved;
  const [current] = done.current;
  const eventsWaiting = done.eventsWaiting.length > 0;
  if (moved) return { kind: "moved", order: moved, eventsWaiting };
  if (current?.status === "placed") {
    // A placed order's animal is pending unless something outside the API changed it.
    throw new Error(`order ${current.id} is placed but its animal is not pending`);
  }
  return { kind: "refused", current, eventsWaiting };
}
