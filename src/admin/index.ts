import { type Hook, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError, messages } from "../errors.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { rejectInvalid } from "../validation.ts";
import {
  accountPlanHandler,
  createKeyHandler,
  dispatchEventsHandler,
  inviteHandler,
  keyPlanHandler,
  listKeysHandler,
  revokeKeyHandler,
} from "./admin.handlers.ts";
import {
  accountPlanRoute,
  createKeyRoute,
  dispatchEventsRoute,
  inviteRoute,
  keyPlanRoute,
  listKeysRoute,
  revokeKeyRoute,
} from "./admin.routes.ts";
import { requireAdminToken } from "./admin-token.ts";

/** A path that names no key or account is not found; a bad body or query is a 400 with details. */
const validate: Hook<unknown, AppEnv, string, undefined> = (result, c) => {
  if (result.target === "param" && !result.success) {
    throw new ApiError("not_found", messages.notFound);
  }
  return rejectInvalid(result, c);
};

/**
 * Operator endpoints, used by `npm run key` and `npm run account`; every one
 * needs the ADMIN_TOKEN. Body checks run before each route's validators:
 * media type, size, then JSON syntax.
 */
export function adminRoutes(): OpenAPIHono<AppEnv> {
  const admin = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  admin.use(requireAdminToken());
  for (const path of ["/keys", "/keys/:hash/plan", "/accounts/:email/plan"]) {
    admin.post(path, jsonBody());
  }
  admin.openapi(createKeyRoute, createKeyHandler, validate);
  admin.openapi(listKeysRoute, listKeysHandler, validate);
  admin.openapi(revokeKeyRoute, revokeKeyHandler, validate);
  admin.openapi(keyPlanRoute, keyPlanHandler, validate);
  admin.openapi(accountPlanRoute, accountPlanHandler, validate);
  admin.openapi(inviteRoute, inviteHandler, validate);
  admin.openapi(dispatchEventsRoute, dispatchEventsHandler, validate);
  admin.all("/keys", methodNotAllowed(["GET", "HEAD", "POST"]));
  for (const path of ["/keys/:hash/revoke", "/keys/:hash/plan", "/events/dispatch"]) {
    admin.all(path, methodNotAllowed(["POST"]));
  }
  for (const path of ["/accounts/:email/plan", "/accounts/:email/invite"]) {
    admin.all(path, methodNotAllowed(["POST"]));
  }
  return admin;
}
