import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { limitsOf } from "../rate-limit/plans.ts";
import { rateLimitClient } from "../rate-limit/rate-limit-client.ts";
import type { applyKeyPolicyRoute } from "./key-policy.routes.ts";

/**
 * Hands a revocation or plan change straight to the key's Durable Object, which
 * every request with that key consults, so it applies from the next request
 * even where an isolate still caches the old KV record.
 */
export const applyKeyPolicyHandler: RouteHandler<typeof applyKeyPolicyRoute, AppEnv> = async (
  c,
) => {
  const { hash } = c.req.valid("param");
  const { revoked, plan, limits, version } = c.req.valid("json");
  await rateLimitClient(c.env.RATE_LIMITER).applyPolicy(hash, {
    limits: limitsOf({ plan, limits }),
    revoked,
    version,
  });
  return c.body(null, 204);
};
