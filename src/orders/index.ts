import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { notFoundWhenIdInvalid, rejectInvalid } from "../validation.ts";
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

/**
 * The store's routes (experimental), below the /v1 authentication and
 * limits. Placing an order checks its body before validation: media type,
 * size, then JSON syntax. Completing and cancelling take no body.
 */
export function ordersRoutes(): OpenAPIHono<AppEnv> {
  const store = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  store.post("/store/orders", jsonBody());
  store.openapi(listOrdersRoute, listOrdersHandler);
  store.openapi(placeOrderRoute, placeOrderHandler);
  const orderNotFoundWhenInvalid = notFoundWhenIdInvalid(ORDER_NOT_FOUND);
  store.openapi(getOrderRoute, getOrderHandler, orderNotFoundWhenInvalid);
  store.openapi(completeOrderRoute, completeOrderHandler, orderNotFoundWhenInvalid);
  store.openapi(cancelOrderRoute, cancelOrderHandler, orderNotFoundWhenInvalid);
  store.all("/store/orders", methodNotAllowed(["GET", "HEAD", "POST"]));
  store.all("/store/orders/:orderId", methodNotAllowed(["GET", "HEAD"]));
  store.all("/store/orders/:orderId/complete", methodNotAllowed(["POST"]));
  store.all("/store/orders/:orderId/cancel", methodNotAllowed(["POST"]));
  return store;
}
