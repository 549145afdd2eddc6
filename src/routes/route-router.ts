import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Handler, MiddlewareHandler } from "hono";
import { type DeprecationNotice, deprecationsIn } from "../api/deprecation.ts";
import type { RouteHandlers } from "../api/route-handlers.ts";
import {
  hiddenOperationOf,
  type OperatorRoute,
  operationOf,
  type RouteTable,
} from "../api/route-table.ts";
import type { AppEnv } from "../context.ts";
import { idempotentHandler } from "../idempotency/idempotent-request.ts";
import { routeChecks } from "../middleware/api-request.ts";
import { requestBody } from "../middleware/request-body.ts";
import { notFoundWhenIdInvalid, rejectInvalid } from "../validation.ts";

/** What `openapi()` takes as a handler when it is given a route of no particular shape. */
type AnyRouteHandler = Parameters<OpenAPIHono<AppEnv>["openapi"]>[1];

/**
 * Registers one route: first what its traits ask for (`checks`, one step),
 * then Hono's validators, whose failures on a path identifier are a 404
 * where the route names its message, then the handler (wrapped in its
 * Idempotency-Key's claim where the route takes one).
 */
function register(
  router: OpenAPIHono<AppEnv>,
  operation: RouteConfig,
  route: OperatorRoute,
  handler: unknown,
  checks: MiddlewareHandler<AppEnv> | undefined,
): void {
  const hook =
    route.invalidIdMessage === undefined
      ? undefined
      : notFoundWhenIdInvalid(route.invalidIdMessage);
  const middleware = checks ? [checks] : [];
  // The table ties each handler to its own route's types; here every route is the same shape.
  router.openapi({ ...operation, middleware }, handler as AnyRouteHandler, hook);
}

/**
 * The router of a resource's `/v1` routes, each with its checks (scope,
 * sunset, body) and its handler.
 */
export function apiRouter<T extends RouteTable>(
  table: T,
  handlers: RouteHandlers<T>,
): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  const notices = new Map<string, DeprecationNotice>(
    deprecationsIn([table]).map((notice) => [notice.operationId, notice]),
  );
  for (const [operationId, route] of Object.entries(table)) {
    const handler = handlers[operationId];
    register(
      router,
      operationOf(operationId, route),
      route,
      // The table ties each handler to its own route's types; the trait takes any route's.
      route.idempotent
        ? idempotentHandler(operationId, route, handler as Handler<AppEnv>)
        : handler,
      routeChecks(route, notices.get(operationId)),
    );
  }
  return router;
}

/** The router of the operator's routes, none of them in a document. */
export function operatorRouter<T extends RouteTable<OperatorRoute>>(
  table: T,
  handlers: RouteHandlers<T>,
): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  for (const [operationId, route] of Object.entries(table)) {
    register(
      router,
      hiddenOperationOf(operationId, route),
      route,
      handlers[operationId],
      requestBody(route),
    );
  }
  return router;
}
