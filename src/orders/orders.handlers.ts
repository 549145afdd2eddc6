import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink, pageReply } from "../api/pagination.ts";
import type { RouteHandlers } from "../api/route-handlers.ts";
import { ApiError, messages } from "../errors.ts";
import { replyOf } from "../idempotency/idempotent-request.ts";
import { PET_NOT_FOUND } from "../pets/pets.schemas.ts";
import {
  findOrder,
  listOrders,
  moveOrder,
  type OrderMove,
  orderMoves,
  placeOrder,
} from "./orders.queries.ts";
import type { orderRoutes } from "./orders.routes.ts";
import { ORDER_NOT_FOUND, OrderSchema } from "./orders.schemas.ts";

type OrderHandlers = RouteHandlers<typeof orderRoutes>;

/** completeOrder and cancelOrder: the moved order, or why nothing moved: not the caller's (404), or not `placed` (409). */
function moveHandler(move: OrderMove): OrderHandlers["completeOrder"] {
  return async (c) => {
    const request = {
      apiKeyHash: c.get("apiKey").hash,
      orderId: c.req.valid("param").orderId,
      now: Date.now(),
    };
    const outcome = await moveOrder(c.get("services").db, move, request);
    if (outcome.kind === "moved") return c.json(outcome.order, 200);
    if (!outcome.current) throw new ApiError("not_found", ORDER_NOT_FOUND);
    throw new ApiError(
      "invalid_transition",
      messages.invalidTransition(outcome.current.status, orderMoves[move].order),
    );
  };
}

/** The store's handlers, one per route of the table. */
export const orderHandlers = {
  listOrders: async (c) => {
    const { limit, status, cursor } = c.req.valid("query");
    const afterId = cursor === undefined ? 0 : decodeCursor(cursor);
    const page = await listOrders(c.get("services").db, {
      apiKeyHash: c.get("apiKey").hash,
      limit,
      status,
      afterId,
    });
    const last = page.orders.at(-1);
    const next =
      page.hasMore && last ? nextPageLink(c.req.url, { limit, status }, last.id) : undefined;
    return pageReply(c, page.orders, next);
  },

  /** Places the order; nothing is ordered when there is no such animal (404) or it is not available (409). */
  placeOrder: async (c) => {
    const { petId } = c.req.valid("json");
    const placement = { apiKeyHash: c.get("apiKey").hash, petId, now: Date.now() };
    const outcome = await placeOrder(c.get("services").db, placement, c.get("claim"));
    if (outcome.kind === "refused") {
      const { petStatus } = outcome;
      if (petStatus === undefined) throw new ApiError("not_found", PET_NOT_FOUND);
      throw new ApiError("pet_not_available", messages.petNotAvailable(petStatus));
    }
    const order = replyOf(outcome, 201, OrderSchema);
    c.header("Location", `/v1/store/orders/${order.id}`);
    return c.json(order, 201);
  },

  getOrder: async (c) => {
    const order = await findOrder(
      c.get("services").db,
      c.get("apiKey").hash,
      c.req.valid("param").orderId,
    );
    if (!order) throw new ApiError("not_found", ORDER_NOT_FOUND);
    return c.json(order, 200);
  },

  completeOrder: moveHandler("complete"),
  cancelOrder: moveHandler("cancel"),
} satisfies OrderHandlers;
