import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { ApiError, messages } from "../errors.ts";
import { log } from "../logging.ts";
import { sha256 } from "../utils/sha256.ts";

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** As for SESSION_SECRET: short enough secrets could be guessed through this public endpoint. */
const MIN_TOKEN_LENGTH = 32;

/** Compares digests, not the strings, so neither the length nor the content leaks through timing. */
async function sameSecret(sent: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256(sent), sha256(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

/**
 * Admits only the operator: `Authorization: Bearer <ADMIN_TOKEN>`. Where no
 * ADMIN_TOKEN is configured, or one too short to resist guessing, the
 * operator routes do not exist at all (404).
 */
export function requireAdminToken(): MiddlewareHandler<AppEnv> {
  return async function requireAdminToken(c, next) {
    const expected = c.env.ADMIN_TOKEN;
    if (typeof expected !== "string" || expected.length < MIN_TOKEN_LENGTH) {
      if (expected) log("error", "ADMIN_TOKEN is too short; the operator endpoints are off");
      throw new ApiError("not_found", messages.notFound);
    }
    const sent = BEARER.exec(c.req.header("Authorization") ?? "")?.[1];
    if (sent === undefined || !(await sameSecret(sent, expected))) {
      throw new ApiError("unauthorized", "The operator token is missing or wrong.", {
        headers: { "WWW-Authenticate": 'Bearer realm="petstore-admin"' },
      });
    }
    await next();
  };
}
