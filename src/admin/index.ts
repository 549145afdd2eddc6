import { type Hook, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { rejectInvalid } from "../validation.ts";
import { requireAdminToken } from "./admin-token.ts";
import { applyKeyPolicyHandler } from "./key-policy.handlers.ts";
import { applyKeyPolicyRoute } from "./key-policy.routes.ts";

/** A path that is not a key hash names nothing (404); a bad body is a 400 with details. */
const validatePolicy: Hook<unknown, AppEnv, string, undefined> = (result, c) => {
  if (result.target === "param" && !result.success) {
    throw new ApiError("not_found", "No resource exists at this address.");
  }
  return rejectInvalid(result, c);
};

/** Operator endpoints, used by `npm run key`; every one needs the ADMIN_TOKEN. */
export function adminRoutes(): OpenAPIHono<AppEnv> {
  const admin = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  admin.use(requireAdminToken());
  admin.openapi(applyKeyPolicyRoute, applyKeyPolicyHandler, validatePolicy);
  admin.all("/keys/:hash/policy", methodNotAllowed(["POST"]));
  return admin;
}
