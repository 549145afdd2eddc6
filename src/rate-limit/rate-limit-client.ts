import { guardStorage } from "../storage/storage-guard.ts";
import { keyHitBatches } from "./key-hit-batches.ts";
import type { Limits } from "./plans.ts";
import { keylessLimits } from "./plans.ts";
import type { Budget, HitResult, KeyPolicy, WindowReport } from "./rate-limit-types.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import type { HourCount } from "./usage-history.ts";

/** The only way the rest of the Worker reaches the RateLimiter Durable Object. */
export interface RateLimitClient {
  /** Decides one request of a key; concurrent ones of a key share a call (see keyHitBatches). */
  hitKey(keyHash: string, policy: KeyPolicy): Promise<HitResult>;
  hitKeyless(clientIp: string): Promise<HitResult>;
  /** The client IP's keyless budget as it stands, counting nothing. */
  peekKeyless(clientIp: string): Promise<HitResult>;
  applyPolicy(keyHash: string, policy: KeyPolicy): Promise<void>;
  usage(keyHash: string, limits: Limits): Promise<WindowReport[]>;
  /** The key's admitted requests per UTC hour over the last 30 days, in one call. */
  usageHistory(keyHash: string): Promise<HourCount[]>;
  /** Counts one attempt against a named budget (a minute or an hour window), for throttling. */
  hitNamed(name: string, budget: Budget): Promise<HitResult>;
}

type LimiterStub = DurableObjectStub<RateLimiter>;

/** The name of the RateLimiter that holds one API key's windows and policy. */
export const keyLimiterName = (keyHash: string): string => `key:${keyHash}`;

/** The name of the RateLimiter that holds one client IP's keyless budget. */
export const ipLimiterName = (clientIp: string): string => `ip:${clientIp}`;

/**
 * Fails closed: when the limiter cannot answer, requests get 503 rather than
 * passing unlimited, since the count is what protects D1 and each key's quota.
 */
export function rateLimitClient(namespace: Env["RATE_LIMITER"]): RateLimitClient {
  const stub = (name: string): LimiterStub => namespace.get(namespace.idFromName(name));
  const call = <T>(name: string, method: (limiter: LimiterStub) => Promise<T>): Promise<T> =>
    guardStorage("Durable Object", () => method(stub(name)));
  const batches = sharesCallsAcrossRequests()
    ? keyHitBatches((keyHash, policy, count) =>
        stub(keyLimiterName(keyHash)).hitKeyBatch(policy, count),
      )
    : undefined;
  return {
    // Each request has its own timeout, since a batch can wait on the call before it.
    async hitKey(keyHash, policy) {
      if (!batches) return call(keyLimiterName(keyHash), (limiter) => limiter.hitKey(policy));
      try {
        return await guardStorage("Durable Object", () => batches.hit(keyHash, policy));
      } catch (error) {
        batches.abandon(keyHash);
        throw error;
      }
    },
    hitKeyless: (clientIp) =>
      call(ipLimiterName(clientIp), (limiter) => limiter.hitKeyless(keylessLimits)),
    peekKeyless: async (clientIp) => ({
      outcome: "allowed",
      windows: await call(ipLimiterName(clientIp), (limiter) => limiter.usage(keylessLimits)),
    }),
    applyPolicy: (keyHash, policy) =>
      call(keyLimiterName(keyHash), (limiter) => limiter.applyPolicy(policy)),
    usage: (keyHash, limits) => call(keyLimiterName(keyHash), (limiter) => limiter.usage(limits)),
    usageHistory: (keyHash) => call(keyLimiterName(keyHash), (limiter) => limiter.usageHistory()),
    hitNamed: (name, budget) => call(`named:${name}`, (limiter) => limiter.hitBudget(budget)),
  };
}

/**
 * Whether a request awaiting a promise that another request settles resumes
 * in its own context, which a key's requests sharing one call rely on. Every
 * deployment has it (handle_cross_request_promise_resolution, the default
 * since the 2024-10-14 compatibility date); Vitest's Workers runtime turns it
 * off for its test runner, and there each request makes its own call.
 */
function sharesCallsAcrossRequests(): boolean {
  return Cloudflare.compatibilityFlags.handle_cross_request_promise_resolution === true;
}
