import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { notFoundWhenIdInvalid, rejectInvalid } from "../validation.ts";
import * as handlers from "./orders.handlers.ts";
import * as routes from "./orders.routes.ts";
import { ORDER_NOT_FOUND } from "./orders.schemas.ts";

/**
 * The store's routes (experimental), below the /v1 authentication and
 * limits. Placing an order checks its body before validation: media type,
 * size, then JSON syntax. Completing and cancelling take no body.
 */
export function ordersRoutes(): OpenAPIHono<AppEnv> {
  const store = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  const notFoundWhenInvalid = notFoundWhenIdInvalid(ORDER_NOT_FOUND);
  store.post("/store/orders", jsonBody());
  store.openapi(routes.listOrdersRoute, handlers.listOrdersHandler);
  store.openapi(routes.placeOrderRoute, handlers.placeOrderHandler);
  store.openapi(routes.getOrderRoute, handlers.getOrderHandler, notFoundWhenInvalid);
  store.openapi(routes.completeOrderRoute, handlers.completeOrderHandler, notFoundWhenInvalid);
  store.openapi(routes.cancelOrderRoute, handlers.cancelOrderHandler, notFoundWhenInvalid);
  store.all("/store/orders", methodNotAllowed(["GET", "HEAD", "POST"]));
  store.all("/store/orders/:orderId", methodNotAllowed(["GET", "HEAD"]));
  store.all("/store/orders/:orderId/complete", methodNotAllowed(["POST"]));
  store.all("/store/orders/:orderId/cancel", methodNotAllowed(["POST"]));
  return store;
}
