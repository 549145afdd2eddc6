import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { messages } from "../errors.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { notFoundWhenIdInvalid } from "../validation.ts";
import * as handlers from "./admin.handlers.ts";
import * as routes from "./admin.routes.ts";
import { requireAdminToken } from "./admin-token.ts";

/**
 * Operator endpoints, used by `npm run key` and `npm run account`; every one
 * needs the ADMIN_TOKEN. Body checks run before each route's validators:
 * media type, size, then JSON syntax.
 */
export function adminRoutes(): OpenAPIHono<AppEnv> {
  // A path that names no key or account is not found; a bad body or query is a 400 with details.
  const admin = new OpenAPIHono<AppEnv>({ defaultHook: notFoundWhenIdInvalid(messages.notFound) });
  admin.use(requireAdminToken());
  for (const path of ["/keys", "/keys/:hash/plan", "/accounts/:email/plan"]) {
    admin.post(path, jsonBody());
  }
  admin.openapi(routes.createKey, handlers.createKey);
  admin.openapi(routes.listKeys, handlers.listKeys);
  admin.openapi(routes.revokeKey, handlers.revokeKey);
  admin.openapi(routes.keyPlan, handlers.keyPlan);
  admin.openapi(routes.accountPlan, handlers.accountPlan);
  admin.openapi(routes.invite, handlers.invite);
  admin.openapi(routes.dispatchEvents, handlers.dispatchEvents);
  admin.all("/keys", methodNotAllowed(["GET", "HEAD", "POST"]));
  const postOnly = ["/keys/:hash/revoke", "/keys/:hash/plan", "/accounts/:email/plan"];
  for (const path of [...postOnly, "/accounts/:email/invite", "/events/dispatch"]) {
    admin.all(path, methodNotAllowed(["POST"]));
  }
  return admin;
}
