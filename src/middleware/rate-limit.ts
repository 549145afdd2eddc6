import type { MiddlewareHandler } from "hono";
import { clientAddress } from "../api/client-address.ts";
import type { AppEnv, Caller } from "../context.ts";
import { ApiError, messages } from "../errors.ts";
import { policyOf } from "../keys/key-projection.ts";
import { rateLimitHeaders } from "../rate-limit/rate-limit-headers.ts";
import type { HitResult } from "../rate-limit/rate-limit-types.ts";
import type { Services } from "../services.ts";

/**
 * The working key's own budget (this isolate's share of it, else its object,
 * which also knows of revocations KV has not spread yet), else the client
 * IP's keyless budget: for no key, a dead key, and a key sent from outside
 * its ranges. A key its object calls dead (`keyDead`) is charged to the IP
 * budget like any other dead key (a second call, after which this isolate
 * remembers it as dead).
 */
async function charge(
  services: Services,
  caller: Caller,
  clientIp: string,
): Promise<{ result: HitResult; keyDead: boolean }> {
  if (caller.kind === "key") {
    const { hash, record } = caller.key;
    const result = await services.limiter.hitKey(hash, policyOf(record));
    if (result.outcome !== "revoked") return { result, keyDead: false };
    services.keys.rememberDead(hash, record);
  }
  const result = await services.limiter.hitKeyless(clientIp);
  return { result, keyDead: caller.kind === "key" };
}

/**
 * Spends one request from the caller's budget, answers 429 where it is spent,
 * and records the budget's headers for the response chain to put on whatever
 * reply follows. A key that exists but no longer works, or works but not
 * from here, is never told to wait: it gets the 401 or 403 that follows,
 * with its IP budget's headers and no Retry-After.
 */
export function rateLimit(): MiddlewareHandler<AppEnv> {
  return async function rateLimit(c, next) {
    const clientIp = clientAddress(c);
    const caller = c.get("caller");
    const { result, keyDead } = await charge(c.get("services"), caller, clientIp);
    if (keyDead) c.set("keyDead", true);
    const headers = rateLimitHeaders(result);
    c.set("rateLimitHeaders", headers);
    if (caller.kind === "dead" || caller.kind === "elsewhere" || keyDead) {
      delete headers["Retry-After"];
    } else if (result.outcome === "banned") {
      throw new ApiError("api_key_banned", messages.apiKeyBanned);
    } else if (result.outcome !== "allowed") {
      throw new ApiError("rate_limited", messages.rateLimited);
    }
    await next();
  };
}
