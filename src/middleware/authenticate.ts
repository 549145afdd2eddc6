import type { MiddlewareHandler } from "hono";
import type { AppEnv, Caller } from "../env.ts";
import { ApiError } from "../errors.ts";
import { hashApiKey, isWellFormedKey } from "../keys/key-format.ts";
import { findKeyRecord } from "../keys/key-store.ts";

const BEARER = /^Bearer(?:[ \t]+(.*))?$/i;

/** One message for every cause, so a caller learns nothing about which keys exist. */
export function unauthorized(keySent: boolean, headers: Record<string, string> = {}): ApiError {
  const challenge = keySent
    ? 'Bearer realm="petstore", error="invalid_token"'
    : 'Bearer realm="petstore"';
  return new ApiError(
    "unauthorized",
    "A valid API key is required: send Authorization: Bearer <key>.",
    {
      headers: { ...headers, "WWW-Authenticate": challenge },
    },
  );
}

function isLive(expiresAt: string | undefined, now: number): boolean {
  return expiresAt === undefined || Date.parse(expiresAt) > now;
}

/**
 * Works out who is calling from the bearer token. It refuses nobody itself:
 * the rate limiter decides, because keyless callers spend a per-IP budget
 * and a key's Durable Object may know of a revocation KV has not spread yet.
 */
export function authenticate(): MiddlewareHandler<AppEnv> {
  return async function authenticate(c, next) {
    c.set("caller", await identify(c.req.header("Authorization"), c.env));
    await next();
  };
}

async function identify(authorization: string | undefined, env: Env): Promise<Caller> {
  const anonymous = (keySent: boolean): Caller => ({ kind: "anonymous", keySent });
  // Another scheme (Basic …) or a bare "Bearer" carries no key, so the challenge
  // names no token error (RFC 6750 §3.1); anything after "Bearer " is a key sent.
  const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1]?.trim();
  if (!token) return anonymous(false);
  if (!isWellFormedKey(token)) return anonymous(true);
  const hash = await hashApiKey(token);
  const record = await findKeyRecord(env.API_KEYS, hash);
  if (!record || record.revoked || !isLive(record.expiresAt, Date.now())) return anonymous(true);
  return { kind: "key", key: { hash, lastFour: record.lastFour, record } };
}
