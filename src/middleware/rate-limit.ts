import type { Context } from "hono";
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
 * remembers it as dead). The address is worked out only for the IP's budget.
 */
async function charge(
  c: Context<AppEnv>,
  services: Services,
  caller: Caller,
): Promise<{ result: HitResult; keyDead: boolean }> {
  if (caller.kind === "key") {
    const { hash, record } = caller.key;
    const result = await services.limiter.hitKey(hash, policyOf(record));
    if (result.outcome !== "revoked") return { result, keyDead: false };
    services.keys.rememberDead(hash, record);
  }
  const result = await services.limiter.hitKeyless(clientAddress(c));
  return { result, keyDead: caller.kind === "key" };
}

/**
 * Spends one request from the caller's budget, puts the budget's headers
 * into `headers` (the reply's, whatever reply follows), and answers 429
 * where it is spent. A key that exists but no longer works, or works but not
 * from here, is never told to wait: it gets the 401 or 403 that follows,
 * with its IP budget's headers and no Retry-After. True when the key's
 * object called a key KV still calls working dead.
 */
export async function spendBudget(
  c: Context<AppEnv>,
  services: Services,
  caller: Caller,
  headers: Record<string, string>,
): Promise<boolean> {
  const { result, keyDead } = await charge(c, services, caller);
  const budget = rateLimitHeaders(result);
  const answeredLater = caller.kind === "dead" || caller.kind === "elsewhere" || keyDead;
  if (answeredLater) delete budget["Retry-After"];
  Object.assign(headers, budget);
  if (answeredLater) return keyDead;
  if (result.outcome === "banned") throw new ApiError("api_key_banned", messages.apiKeyBanned);
  if (result.outcome !== "allowed") throw new ApiError("rate_limited", messages.rateLimited);
  return false;
}
