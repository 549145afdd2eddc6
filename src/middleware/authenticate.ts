import type { Context } from "hono";
import { bearerToken } from "../api/bearer-token.ts";
import { connectingAddress } from "../api/client-address.ts";
import type { AppEnv, AuthenticatedKey, Caller } from "../context.ts";
import { ApiError, messages } from "../errors.ts";
import { inRanges } from "../keys/address-ranges.ts";
import { hashApiKey, isWellFormedKey } from "../keys/key-format.ts";
import { hasStoppedWorking } from "../keys/key-state.ts";
import type { Services } from "../services.ts";

/**
 * Works out who is calling from the bearer token and the address it came
 * from, and refuses nobody: the limiter is charged next, every caller but a
 * working key used from where it may be to their IP's budget, so guessing
 * keys is throttled and a key used elsewhere spends none of its own;
 * `workingKey` then gives the 401 or the 403.
 */
export async function identify(c: Context<AppEnv>, services: Services): Promise<Caller> {
  // Another scheme (Basic …) or a bare "Bearer" carries no key, so the challenge
  // names no token error (RFC 6750 §3.1); anything after "Bearer " is a key sent.
  const token = bearerToken(c.req.header("Authorization"));
  if (!token) return { kind: "anonymous", keySent: false };
  if (!isWellFormedKey(token)) return { kind: "anonymous", keySent: true };
  // Hashed on every request: an isolate keeps no raw key past the request that sent it.
  const hash = await hashApiKey(token);
  const record = await services.keys.find(hash);
  if (!record) return { kind: "anonymous", keySent: true };
  const key = { hash, lastFour: record.lastFour, record };
  // Comparisons on the cached record: expiry needs no write or push to reach any isolate.
  if (hasStoppedWorking(record, Date.now())) return { kind: "dead", key };
  const { allowedRanges } = record;
  if (allowedRanges && !inRanges(allowedRanges, connectingAddress(c))) {
    return { kind: "elsewhere", key };
  }
  return { kind: "key", key };
}

/**
 * The caller's working key, or the one 401 for every caller without one,
 * whether KV's record or the key's Durable Object (`keyDead`) said so. One
 * message for every cause, so a caller learns nothing about which keys
 * exist. A working key sent from outside its ranges gets 403 instead.
 */
export function workingKey(caller: Caller, keyDead: boolean): AuthenticatedKey {
  if (caller.kind === "elsewhere") {
    throw new ApiError("address_not_allowed", messages.addressNotAllowed);
  }
  if (caller.kind === "key" && !keyDead) return caller.key;
  const keySent = caller.kind !== "anonymous" || caller.keySent;
  throw new ApiError("unauthorized", messages.unauthorized, {
    headers: {
      "WWW-Authenticate": keySent
        ? 'Bearer realm="petstore", error="invalid_token"'
        : 'Bearer realm="petstore"',
    },
  });
}
