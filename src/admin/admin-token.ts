import type { MiddlewareHandler } from "hono";
import { bearerToken } from "../api/bearer-token.ts";
import type { AppEnv } from "../context.ts";
import { ApiError, messages } from "../errors.ts";
import { sha256 } from "../utils/sha256.ts";

/** Compares digests, not the strings, so neither the length nor the content leaks through timing. */
async function sameSecret(sent: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256(sent), sha256(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

/**
 * Admits only the operator: `Authorization: Bearer <ADMIN_TOKEN>`. Where no
 * ADMIN_TOKEN is configured, or one too short to resist guessing (the
 * configuration drops it), the operator routes do not exist at all (404).
 */
export function requireAdminToken(): MiddlewareHandler<AppEnv> {
  return async function requireAdminToken(c, next) {
    const expected = c.get("services").config.adminToken;
    if (expected === undefined) throw new ApiError("not_found", messages.notFound);
    const sent = bearerToken(c.req.header("Authorization"));
    if (sent === undefined || !(await sameSecret(sent, expected))) {
      throw new ApiError("unauthorized", "The operator token is missing or wrong.", {
        headers: { "WWW-Authenticate": 'Bearer realm="petstore-admin"' },
      });
    }
    await next();
  };
}
