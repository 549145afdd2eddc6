import { and, asc, eq, gt, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { change } from "../changes/change.ts";
import type { Claim, Outcome } from "../changes/outcomes.ts";
import { type Database, type Drizzle, millis, preparedQueries } from "../db/database.ts";
import { insertWhere } from "../db/insert-where.ts";
import { orders, pets } from "../db/schema.ts";
import { instant, shape } from "../db/shape.ts";
import { accountOfKey } from "../keys/keys.queries.ts";
import { petShape } from "../pets/pets.queries.ts";
import type { PetStatus } from "../pets/pets.schemas.ts";
import { firstRow, readPage } from "../storage/storage-guard.ts";
import type { Order, OrderStatus } from "./orders.schemas.ts";

/** An order as the API returns it, times as RFC 3339 UTC. */
export const orderShape = shape(orders, {
  id: orders.id,
  petId: orders.petId,
  status: orders.status,
  createdAt: instant(orders.createdAt),
  updatedAt: instant(orders.updatedAt),
});

const petId = sql.placeholder("petId");
const callersAccount = accountOfKey(sql.placeholder("apiKeyHash"));

/**
 * A placement, in one D1 batch (one transaction). The animal moves from
 * `available` to `pending`, at a new version (only while it is not
 * deleted, and for a key whose account D1 holds); the order is added only
 * if it did, as `changes()` is the count of the statement before.
 * Concurrent placements for one animal serialise in the database: exactly
 * one moves it, the others change nothing. Its events follow; then the
 * animal's status is read back (none when it was deleted), to say why a
 * refused placement was refused.
 */
const placement = change()
  .step("reservePet", (db) =>
    db
      .update(pets)
      .set({ status: "pending", version: sql`${pets.version} + 1` })
      .where(
        and(
          eq(pets.id, petId),
          eq(pets.status, "available"),
          isNull(pets.deletedAt),
          isNotNull(callersAccount),
        ),
      )
      .prepare(),
  )
  .step("order", (db) =>
    insertWhere(db, orders, {
      row: {
        id: sql<null>`NULL`.as("id"),
        accountId: sql<number>`${callersAccount}`.as("account_id"),
        petId: pets.id,
        status: sql<"placed">`'placed'`.as("status"),
        createdAt: millis("now").as("created_at"),
        updatedAt: millis("now").as("updated_at"),
      },
      from: pets,
      where: and(eq(pets.id, petId), sql`changes() = 1`),
    })
      .returning(orderShape.columns)
      .prepare(),
  )
  .event({
    type: "pet.status_changed",
    data: petShape,
    where: eq(pets.id, petId),
    previousStatus: "available",
  })
  // The one placed order of the animal (a unique index holds it so): the one just placed.
  .event({
    type: "order.placed",
    data: orderShape,
    where: and(eq(orders.petId, petId), eq(orders.status, "placed")),
    account: orders.accountId,
  })
  .read("pet", (db) =>
    db
      .select({ status: pets.status })
      .from(pets)
      .where(and(eq(pets.id, petId), isNull(pets.deletedAt)))
      .prepare(),
  )
  .reply(201, orderShape, eq(orders.id, sql`last_insert_rowid()`));

/**
 * A move: the animal moves on from `pending`, at a new version, only while
 * its order is placed and the caller's, and the order moves only if the
 * animal did; their events follow, then the order is read back.
 */
function moving(to: { order: OrderStatus; pet: PetStatus }) {
  const orderId = sql.placeholder("orderId");
  const callers = and(eq(orders.id, orderId), eq(orders.accountId, callersAccount));
  const placed = and(callers, eq(orders.status, "placed"));
  return change()
    .step("movePet", (db) =>
      db
        .update(pets)
        .set({ status: to.pet, version: sql`${pets.version} + 1` })
        .where(
          and(
            inArray(pets.id, db.select({ id: orders.petId }).from(orders).where(placed)),
            eq(pets.status, "pending"),
          ),
        )
        .prepare(),
    )
    .step("moved", (db) =>
      db
        .update(orders)
        .set({ status: to.order, updatedAt: millis("updatedAt") })
        .where(and(placed, sql`changes() = 1`))
        .returning(orderShape.columns)
        .prepare(),
    )
    .event({
      type: "pet.status_changed",
      data: petShape,
      where: eq(
        pets.id,
        sql`(SELECT ${orders.petId} FROM ${orders} WHERE ${orders.id} = ${orderId})`,
      ),
      previousStatus: "pending",
    })
    .event({
      type: `order.${to.order}` as "order.completed" | "order.cancelled",
      data: orderShape,
      where: eq(orders.id, orderId),
      account: orders.accountId,
    })
    .read("current", (db) => db.select(orderShape.columns).from(orders).where(callers).prepare());
}

/** Each query shape built once per database, so a request only binds values. */
function prepareQueries(db: Drizzle) {
  const ownedByCaller = eq(orders.accountId, callersAccount);
  const page = (byStatus: boolean) =>
    db
      .select(orderShape.columns)
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
      .select(orderShape.columns)
      .from(orders)
      .where(and(ownedByCaller, eq(orders.id, sql.placeholder("id"))))
      .prepare(),
  };
}

/** The orders' prepared queries for a database (exported so a test can read their query plans). */
export const orderQueries = preparedQueries(prepareQueries);

interface OrderPageQuery {
  /** The caller's key: its account's orders are listed. */
  apiKeyHash: string;
  limit: number;
  status: OrderStatus | undefined;
  afterId: number;
}

interface OrderPage {
  orders: Order[];
  hasMore: boolean;
}

/** One page of the account's orders in ascending id order; one extra row tells whether another follows. */
export async function listOrders(db: Database, query: OrderPageQuery): Promise<OrderPage> {
  const { page, pageByStatus } = orderQueries(db);
  const { listed, hasMore } = await readPage(db, query.status ? pageByStatus : page, query);
  return { orders: listed.map(orderShape.render), hasMore };
}

/** The order, if it belongs to the account of the caller's key. */
export async function findOrder(
  db: Database,
  apiKeyHash: string,
  id: number,
): Promise<Order | undefined> {
  const row = await firstRow(db, orderQueries(db).find, { apiKeyHash, id });
  return row && orderShape.render(row);
}

/** A request to order an animal, for the account of the key that sent it. */
interface Placement {
  apiKeyHash: string;
  petId: number;
  now: number;
}

/** Nothing changed: the animal is not available (its status), or does not exist (undefined). */
interface PetUnavailable {
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
export function placeOrder(
  db: Database,
  { apiKeyHash, petId, now }: Placement,
  claim: Claim | undefined,
): Promise<Outcome<Order, PetUnavailable>> {
  return placement.answer(db, {
    values: { apiKeyHash, petId, now },
    claim,
    made: ({ order: [row] }) => row && orderShape.render(row),
    refused: ({ pet: [pet] }) => refusalOrDefect(pet),
  });
}

/** The two moves of a placed order, and where each takes the order and its animal. */
export const orderMoves = {
  complete: { order: "completed", pet: "sold" },
  cancel: { order: "cancelled", pet: "available" },
} as const satisfies Record<string, { order: OrderStatus; pet: PetStatus }>;

export type OrderMove = keyof typeof orderMoves;

interface MoveRequest {
  apiKeyHash: string;
  orderId: number;
  now: number;
}

/** The moves' changes, declared once. */
const moves = { complete: moving(orderMoves.complete), cancel: moving(orderMoves.cancel) };

type MoveOutcome =
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
): Promise<MoveOutcome> {
  const { results } = await moves[move].run(db, {
    apiKeyHash,
    orderId,
    updatedAt: now,
  });
  const [moved] = results.moved;
  const [current] = results.current;
  if (moved) return { kind: "moved", order: orderShape.render(moved) };
  if (current?.status === "placed") {
    // A placed order's animal is pending unless something outside the API changed it.
    throw new Error(`order ${current.id} is placed but its animal is not pending`);
  }
  return { kind: "refused", current: current && orderShape.render(current) };
}
