import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { dispatchEventsAfterChange } from "../middleware/dispatch-events.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { rejectInvalid } from "../validation.ts";
import {
  cancelOrderHandler,
  completeOrderHandler,
  getOrderHandler,
  listOrdersHandler,
  placeOrderHandler,
} from "./orders.handlers.ts";
import {
  cancelOrderRoute,
  completeOrderRoute,
  getOrderRoute,
  listOrdersRoute,
  placeOrderRoute,
} from "./orders.routes.ts";
import { ORDER_NOT_FOUND } from "./orders.schemas.ts";

/** A malformed orderId names no order, so it is simply not found. */
function orderNotFoundWhenInvalid(result: { success: boolean }): undefined {
  if (!result.success) throw new ApiError("not_found", ORDER_NOT_FOUND);
}

/**
 * The store's routes (experimental), below the /v1 authentication and
 * limits. Placing an order checks its body before validation: media type,
 * size, then JSON syntax. Completing and cancelling take no body. The
 * events of every move leave for the webhooks after the reply.
 */
export function ordersRoutes(): OpenAPIHono<AppEnv> {
  const store = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  store.post("/store/orders", jsonBody(), dispatchEventsAfterChange());
  store.post("/store/orders/:orderId/complete", dispatchEventsAfterChange());
  store.post("/store/orders/:orderId/cancel", dispatchEventsAfterChange());
  store.openapi(listOrdersRoute, listOrdersHandler);
  store.openapi(placeOrderRoute, placeOrderHandler);
  store.openapi(getOrderRoute, getOrderHandler, orderNotFoundWhenInvalid);
  store.openapi(completeOrderRoute, completeOrderHandler, orderNotFoundWhenInvalid);
  store.openapi(cancelOrderRoute, cancelOrderHandler, orderNotFoundWhenInvalid);
  store.all("/store/orders", methodNotAllowed(["GET", "HEAD", "POST"]));
  store.all("/store/orders/:orderId", methodNotAllowed(["GET", "HEAD"]));
  store.all("/store/orders/:orderId/complete", methodNotAllowed(["POST"]));
  store.all("/store/orders/:orderId/cancel", methodNotAllowed(["POST"]));
  return store;
}
