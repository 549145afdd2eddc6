import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { type DeprecationNotice, deprecationsIn } from "../api/deprecation.ts";
import type { RouteHandlers } from "../api/route-handlers.ts";
import {
  type OperatorRoute,
  operationOf,
  PATH_PARAMETER,
  type RouteTable,
} from "../api/route-table.ts";
import type { AppEnv } from "../context.ts";
import { idempotentHandler } from "../idempotency/idempotent-request.ts";
import { routeChecks } from "../middleware/api-request.ts";
import { bodyChecks } from "../middleware/request-body.ts";
import { inputValidation, notFoundWhenIdInvalid, rejectInvalid } from "../validation.ts";

/**
 * The validation of a route's input as `request` declares it (an API
 * route's operation adds its Idempotency-Key), whose failures on a path
 * identifier are a 404 where the route names its message.
 */
function validationOf(route: OperatorRoute, request: OperatorRoute["request"]) {
  const hook =
    route.invalidIdMessage === undefined
      ? rejectInvalid
      : notFoundWhenIdInvalid(route.invalidIdMessage);
  return inputValidation(request, hook);
}

/**
 * Registers one route as one step and its handler: the step runs what its
 * traits ask for and validates its input, in that order; the handler is
 * wrapped in its Idempotency-Key's claim where the route takes one. No
 * validator of Hono's follows: the step has run them.
 */
function register(
  router: Hono<AppEnv>,
  route: OperatorRoute,
  handler: unknown,
  step: MiddlewareHandler<AppEnv>,
): void {
  const path = route.path.replaceAll(PATH_PARAMETER, ":$1");
  // The table ties each handler to its own route's types; here every route is the same shape.
  router.on(route.method.toUpperCase(), path, step, handler as MiddlewareHandler<AppEnv>);
}

/**
 * The router of a resource's `/v1` routes, each with its checks (scope,
 * sunset, body, input) and its handler. Each operation is also in the
 * router's registry, so the app can say which it serves (the document is
 * written from the tables themselves).
 */
export function apiRouter<T extends RouteTable>(
  table: T,
  handlers: RouteHandlers<T>,
): OpenAPIHono<AppEnv> {
  const router = new OpenAPIHono<AppEnv>();
  const notices = new Map<string, DeprecationNotice>(
    deprecationsIn([table]).map((notice) => [notice.operationId, notice]),
  );
  for (const [operationId, route] of Object.entries(table)) {
    const handler = handlers[operationId];
    const operation = operationOf(operationId, route);
    router.openAPIRegistry.registerPath(operation);
    register(
      router,
      route,
      route.idempotent
        ? idempotentHandler(operationId, route, handler as MiddlewareHandler<AppEnv>)
        : handler,
      routeChecks(route, notices.get(operationId), validationOf(route, operation.request)),
    );
  }
  return router;
}

/**
 * The router of the operator's routes, each with its body's checks and its
 * input's validation as one step, then its handler.
 */
export function operatorRouter<T extends RouteTable<OperatorRoute>>(
  table: T,
  handlers: RouteHandlers<T>,
): Hono<AppEnv> {
  const router = new Hono<AppEnv>();
  for (const [operationId, route] of Object.entries(table)) {
    const body = bodyChecks(route);
    const validate = validationOf(route, route.request);
    register(router, route, handlers[operationId], async function operatorChecks(c, next) {
      if (body) await body(c);
      if (validate) await validate(c);
      await next();
    });
  }
  return router;
}
