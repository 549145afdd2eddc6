import type { RouteHandler } from "@hono/zod-openapi";
import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink } from "../api/pagination.ts";
import type { AppEnv } from "../env.ts";
import { ApiError, messages } from "../errors.ts";
import { dispatchAfterChange } from "../events/event-dispatch.ts";
import { claimOf, replyOf } from "../idempotency/idempotent-request.ts";
import { PET_NOT_FOUND } from "../pets/pets.schemas.ts";
import {
  findOrder,
  listOrders,
  type MoveOutcome,
  moveOrder,
  type OrderMove,
  orderMoves,
  type PetUnavailable,
  placeOrder,
} from "./orders.queries.ts";
import type {
  cancelOrderRoute,
  completeOrderRoute,
  getOrderRoute,
  listOrdersRoute,
  placeOrderRoute,
} from "./orders.routes.ts";
import { ORDER_NOT_FOUND, type Order, OrderSchema } from "./orders.schemas.ts";

export const listOrdersHandler: RouteHandler<typeof listOrdersRoute, AppEnv> = async (c) => {
  const { limit, status, cursor } = c.req.valid("query");
  const afterId = cursor === undefined ? 0 : decodeCursor(cursor);
  const page = await listOrders(c.var.services.db, {
    apiKeyHash: c.var.apiKey.hash,
    limit,
    status,
    afterId,
  });
  const last = page.orders.at(-1);
  if (page.hasMore && last) c.header("Link", nextPageLink(c.req.url, { limit, status }, last.id));
  return c.json(page.orders, 200);
};

/** Why nothing was ordered: no such animal (404), or one that is not available (409). */
function refusal({ petStatus }: PetUnavailable): ApiError {
  return petStatus === undefined
    ? new ApiError("not_found", PET_NOT_FOUND)
    : new ApiError("pet_not_available", messages.petNotAvailable(petStatus));
}

/** Places the order, once per Idempotency-Key when one is sent, answering every retry as the first request was answered. */
export const placeOrderHandler: RouteHandler<typeof placeOrderRoute, AppEnv> = async (c) => {
  const { petId } = c.req.valid("json");
  const idempotencyKey = c.req.valid("header")["Idempotency-Key"];
  const placement = { apiKeyHash: c.var.apiKey.hash, petId, now: Date.now() };
  const claim =
    idempotencyKey === undefined
      ? undefined
      : await claimOf(placement.apiKeyHash, idempotencyKey, "placeOrder", [petId], placement.now);
  const outcome = await placeOrder(c.var.services.db, placement, claim);
  dispatchAfterChange(c.var.services, c.executionCtx, outcome);
  if (outcome.kind === "refused") throw refusal(outcome);
  const { body: order, replayed } = replyOf(outcome, 201, OrderSchema);
  if (replayed) c.header("Idempotent-Replayed", "true");
  c.header("Location", `/v1/store/orders/${order.id}`);
  return c.json(order, 201);
};

export const getOrderHandler: RouteHandler<typeof getOrderRoute, AppEnv> = async (c) => {
  const order = await findOrder(c.var.services.db, c.var.apiKey.hash, c.req.valid("param").orderId);
  if (!order) throw new ApiError("not_found", ORDER_NOT_FOUND);
  return c.json(order, 200);
};

/** The moved order, or why nothing moved: not the caller's (404), or not `placed` (409). */
function movedOrder(outcome: MoveOutcome, move: OrderMove): Order {
  if (outcome.kind === "moved") return outcome.order;
  if (!outcome.current) throw new ApiError("not_found", ORDER_NOT_FOUND);
  throw new ApiError(
    "invalid_transition",
    messages.invalidTransition(outcome.current.status, orderMoves[move].order),
  );
}

export const completeOrderHandler: RouteHandler<typeof completeOrderRoute, AppEnv> = async (c) => {
  const request = {
    apiKeyHash: c.var.apiKey.hash,
    orderId: c.req.valid("param").orderId,
    now: Date.now(),
  };
  const outcome = await moveOrder(c.var.services.db, "complete", request);
  dispatchAfterChange(c.var.services, c.executionCtx, outcome);
  return c.json(movedOrder(outcome, "complete"), 200);
};

export const cancelOrderHandler: RouteHandler<typeof cancelOrderRoute, AppEnv> = async (c) => {
  const request = {
    apiKeyHash: c.var.apiKey.hash,
    orderId: c.req.valid("param").orderId,
    now: Date.now(),
  };
  const outcome = await moveOrder(c.var.services.db, "cancel", request);
  dispatchAfterChange(c.var.services, c.executionCtx, outcome);
  return c.json(movedOrder(outcome, "cancel"), 200);
};
