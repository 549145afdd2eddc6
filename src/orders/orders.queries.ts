import { and, asc, eq, gt, inArray, isNotNull, type Placeholder, sql } from "drizzle-orm";
import { boundStatement, type Database, firstRow, preparedQueries } from "../db/database.ts";
import { orders, pets } from "../db/schema.ts";
import {
  type ChangeEvents,
  eventsWaitingIn,
  eventsWaitingProbe,
} from "../events/events-waiting.ts";
import {
  type IdempotencyClaim,
  idempotencyStatements,
  type Replayed,
  type Reused,
  responseOf,
  runOnce,
  type Stored,
} from "../idempotency/idempotency.queries.ts";
import { accountOfKey } from "../keys/keys.queries.ts";
import type { PetStatus } from "../pets/pets.schemas.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { Order, OrderStatus } from "./orders.schemas.ts";

const orderColumns = {
  id: orders.id,
  petId: orders.petId,
  status: orders.status,
  createdAt: orders.createdAt,
  updatedAt: orders.updatedAt,
};

interface OrderRow {
  id: number;
  petId: number;
  status: OrderStatus;
  createdAt: Date;
  updatedAt: Date;
}

/** An order as the API returns it: times as RFC 3339 UTC strings. */
function toOrder(row: OrderRow): Order {
  return {
    id: row.id,
    petId: row.petId,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** An order as D1 returns it to a bound statement: by column name, times in milliseconds. */
interface StoredOrderRow {
  id: number;
  pet_id: number;
  status: OrderStatus;
  created_at: number;
  updated_at: number;
}

function storedOrder(row: StoredOrderRow): Order {
  return toOrder({
    id: row.id,
    petId: row.pet_id,
    status: row.status,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  });
}

/** The statements of `moveOrder`'s batch for one move, bound per request. */
function moveStatements(db: Database, to: { order: OrderStatus; pet: PetStatus }) {
  const callers = and(
    eq(orders.id, sql.placeholder("orderId")),
    eq(orders.accountId, accountOfKey(sql.placeholder("apiKeyHash"))),
  );
  const placed = and(callers, eq(orders.status, "placed"));
  return [
    boundStatement(
      db,
      db
        .update(pets)
        .set({ status: to.pet })
        .where(
          and(
            inArray(pets.id, db.select({ id: orders.petId }).from(orders).where(placed)),
            eq(pets.status, "pending"),
          ),
        ),
    ),
    boundStatement(
      db,
      db
        .update(orders)
        // Milliseconds, as the column stores them: a placeholder here is bound as it is.
        .set({ status: to.order, updatedAt: sql`${sql.placeholder("updatedAt")}` })
        .where(and(placed, sql`changes() = 1`))
        .returning(orderColumns),
    ),
    boundStatement(db, db.select(orderColumns).from(orders).where(callers)),
    boundStatement(db, eventsWaitingProbe(db)),
  ];
}

/** Each shape built once per database, so a request only binds values. */
function prepareQueries(db: Database) {
  const ownedByCaller = eq(orders.accountId, accountOfKey(sql.placeholder("apiKeyHash")));
  const page = (byStatus: boolean) =>
    db
      .select(orderColumns)
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
  return {
    page: page(false),
    pageByStatus: page(true),
    find: db
      .select(orderColumns)
      .from(orders)
      .where(and(ownedByCaller, eq(orders.id, sql.placeholder("id"))))
      .prepare(),
    placement: placementBatch(db),
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
    query.status ? pageByStatus.all(values) : page.all(values),
  );
  return { orders: rows.slice(0, query.limit).map(toOrder), hasMore: rows.length > query.limit };
}

/** The order, if it belongs to the account of the caller's key. */
export async function findOrder(
  db: Database,
  apiKeyHash: string,
  id: number,
): Promise<Order | undefined> {
  const row = await guardStorage("D1", () => orderQueries(db).find.get({ apiKeyHash, id }));
  return row && toOrder(row);
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

export type PlaceOutcome = { kind: "placed"; order: Order } | PetUnavailable;

/**
 * A placement's statements, for one D1 batch (one transaction). The animal
 * moves from `available` to `pending` (only for a key whose account D1
 * holds); the order is added only if it did, as `changes()` is the count of
 * the statement before. Concurrent placements for one animal serialise in
 * the database: exactly one moves it, the others change nothing. Then the
 * animal's status is read back, to say why a refused placement was refused.
 */
function placementStatements(
  db: Database,
  { apiKeyHash, petId, now }: { [Value in keyof Placement]: Placement[Value] | Placeholder },
) {
  const account = accountOfKey(apiKeyHash);
  return {
    reservePet: db
      .update(pets)
      .set({ status: "pending" })
      .where(and(eq(pets.id, petId), eq(pets.status, "available"), isNotNull(account))),
    insertOrder: db
      .insert(orders)
      .select(
        db
          .select({
            id: sql<null>`NULL`.as("id"),
            accountId: sql<number>`${account}`.as("account_id"),
            petId: pets.id,
            status: sql<"placed">`'placed'`.as("status"),
            createdAt: sql<number>`${now}`.as("created_at"),
            updatedAt: sql<number>`${now}`.as("updated_at"),
          })
          .from(pets)
          .where(and(eq(pets.id, petId), sql`changes() = 1`)),
      )
      .returning(orderColumns),
    readPet: db.select({ status: pets.status }).from(pets).where(eq(pets.id, petId)),
  };
}

/** An unkeyed placement's batch, its statements bound per request by the placement's values. */
function placementBatch(db: Database) {
  const { reservePet, insertOrder, readPet } = placementStatements(db, {
    apiKeyHash: sql.placeholder("apiKeyHash"),
    petId: sql.placeholder("petId"),
    now: sql.placeholder("now"),
  });
  return [reservePet, insertOrder, readPet, eventsWaitingProbe(db)].map((query) =>
    boundStatement(db, query),
  );
}

/** The order a placement makes, as the API returns it, but for the id the database assigns. */
function placedBody({ petId, now }: Placement): Omit<Order, "id"> {
  const at = new Date(now).toISOString();
  return { petId, status: "placed", createdAt: at, updatedAt: at };
}

function placementOutcome(
  order: Order | undefined,
  pet: { status: PetStatus } | undefined,
): PlaceOutcome {
  if (order) return { kind: "placed", order };
  if (pet?.status === "available") {
    // Only a key D1 does not hold (one that still awaits the KV import) reaches this.
    throw new Error("no account owns the API key, so the animal could not be ordered");
  }
  return { kind: "refused", petStatus: pet?.status };
}

/** Orders an available animal: it becomes `pending` and the order `placed`, together or not at all. */
export async function placeOrder(
  db: Database,
  placement: Placement,
): Promise<PlaceOutcome & ChangeEvents> {
  const values = { ...placement };
  const [, inserted, read, probe] = await guardStorage("D1", () =>
    db.$client.batch(orderQueries(db).placement.map((statement) => statement(values))),
  );
  const order = firstRow<StoredOrderRow>(inserted);
  const pet = firstRow<{ status: PetStatus }>(read);
  return {
    ...placementOutcome(order && storedOrder(order), pet),
    eventsWaiting: eventsWaitingIn(probe),
  };
}

/**
 * `placeOrder` once per Idempotency-Key: the placement and the response it
 * is sent are stored in one batch, so a retry replays that response even
 * after the order has moved on. A refused placement stores nothing.
 */
export function placeOrderOnce(
  db: Database,
  placement: Placement,
  claim: IdempotencyClaim,
): Promise<((Stored | PetUnavailable) & ChangeEvents) | Replayed | Reused> {
  const { reservePet, insertOrder, readPet } = placementStatements(db, placement);
  const keyed = idempotencyStatements(db, claim);
  return runOnce(
    db,
    claim,
    () =>
      db.batch([
        ...keyed.claim,
        reservePet,
        insertOrder,
        ...keyed.settle(201, placedBody(placement)),
        readPet,
        eventsWaitingProbe(db),
      ]),
    ([, , , [order], , , [stored], [pet], probe]) => {
      const outcome = placementOutcome(order && toOrder(order), pet);
      const events = { eventsWaiting: probe.length > 0 };
      if (outcome.kind === "refused") return { ...outcome, ...events };
      if (!stored) throw new Error("an order was placed but its response not stored");
      return { kind: "stored", response: responseOf(stored), ...events } as const;
    },
  );
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
  const values = { apiKeyHash, orderId, updatedAt: now };
  const [, updated, read, probe] = await guardStorage("D1", () =>
    db.$client.batch(orderQueries(db)[move].map((statement) => statement(values))),
  );
  const movedRow = firstRow<StoredOrderRow>(updated);
  const currentRow = firstRow<StoredOrderRow>(read);
  const moved = movedRow && storedOrder(movedRow);
  const current = currentRow && storedOrder(currentRow);
  const eventsWaiting = eventsWaitingIn(probe);
  if (moved) return { kind: "moved", order: moved, eventsWaiting };
  if (current?.status === "placed") {
    // A placed order's animal is pending unless something outside the API changed it.
    throw new Error(`order ${current.id} is placed but its animal is not pending`);
  }
  return { kind: "refused", current, eventsWaiting };
}
