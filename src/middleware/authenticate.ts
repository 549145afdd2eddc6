import type { MiddlewareHandler } from "hono";
import { bearerToken } from "../api/bearer-token.ts";
import { connectingAddress } from "../api/client-address.ts";
import type { AppEnv, Caller } from "../context.ts";
import { ApiError, messages } from "../errors.ts";
import { inRanges } from "../keys/address-ranges.ts";
import { hashApiKey, isWellFormedKey } from "../keys/key-format.ts";
import { hasStoppedWorking } from "../keys/key-state.ts";
import type { Services } from "../services.ts";

/**
 * Works out who is calling from the bearer token and the address it came
 * from, and refuses nobody: the limiter runs next and charges every caller,
 * all but working keys used from where they may be to their IP's budget, so
 * guessing keys is throttled and a key used elsewhere spends none of its
 * own; `requireKey` then gives the 401 or the 403.
 */
export function authenticate(): MiddlewareHandler<AppEnv> {
  return async function authenticate(c, next) {
    const authorization = c.req.header("Authorization");
    c.set("caller", await identify(authorization, connectingAddress(c), c.get("services")));
    await next();
  };
}

async function identify(
  authorization: string | undefined,
  address: string | undefined,
  services: Services,
): Promise<Caller> {
  // Another scheme (Basic …) or a bare "Bearer" carries no key, so the challenge
  // names no token error (RFC 6750 §3.1); anything after "Bearer " is a key sent.
  const token = bearerToken(authorization);
  if (!token) return { kind: "anonymous", keySent: false };
  if (!isWellFormedKey(token)) return { kind: "anonymous", keySent: true };
  const hash = await hashApiKey(token);
  const record = await services.keys.find(hash);
  if (!record) return { kind: "anonymous", keySent: true };
  const key = { hash, lastFour: record.lastFour, record };
  // Comparisons on the cached record: expiry needs no write or push to reach any isolate.
  if (hasStoppedWorking(record, Date.now())) return { kind: "dead", key };
  const { allowedRanges } = record;
  if (allowedRanges && !inRanges(allowedRanges, address)) return { kind: "elsewhere", key };
  return { kind: "key", key };
}

/**
 * The one 401, for every caller without a working key, whether KV's record or
 * the key's Durable Object said so. One message for every cause, so a caller
 * learns nothing about which keys exist. A working key sent from outside its
 * ranges gets 403 instead.
 */
export function requireKey(): MiddlewareHandler<AppEnv> {
  return async function requireKey(c, next) {
    const caller = c.get("caller");
    if (caller.kind === "elsewhere") {
      throw new ApiError("address_not_allowed", messages.addressNotAllowed);
    }
    if (caller.kind !== "key" || c.get("keyDead")) {
      const keySent = caller.kind !== "anonymous" || caller.keySent;
      throw new ApiError("unauthorized", messages.unauthorized, {
        headers: {
          "WWW-Authenticate": keySent
            ? 'Bearer realm="petstore", error="invalid_token"'
            : 'Bearer realm="petstore"',
        },
      });
    }
    c.set("apiKey", caller.key);
    await next();
  };
}
