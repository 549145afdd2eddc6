import { guardStorage, STORAGE_TIMEOUT_MS } from "../storage/storage-guard.ts";
import { type DecideHits, keyHitBatches, newestPolicy } from "./key-hit-batches.ts";
import { KeyShares } from "./key-shares.ts";
import type { Limits } from "./plans.ts";
import { keylessLimits } from "./plans.ts";
import type {
  Budget,
  Grant,
  HitResult,
  KeyPolicy,
  ShareReport,
  WindowReport,
} from "./rate-limit-types.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import type { HourCount } from "./usage-history.ts";

/** The only way the rest of the Worker reaches the RateLimiter Durable Object. */
export interface RateLimitClient {
  /**
   * Decides one request of a key: from this isolate's share of the key's
   * budget when it holds one (see KeyShares), else by the key's object, in a
   * call concurrent requests of the key share (see keyHitBatches).
   */
  hitKey(keyHash: string, policy: KeyPolicy): Promise<HitResult>;
  hitKeyless(clientIp: string): Promise<HitResult>;
  /** The client IP's keyless budget as it stands, counting nothing. */
  peekKeyless(clientIp: string): Promise<HitResult>;
  /** Pushes a change of the key to its object; this isolate's share of the key ends at once. */
  applyPolicy(keyHash: string, policy: KeyPolicy): Promise<void>;
  /** The key's windows as they stand, counting nothing; this isolate's share of them given back first. */
  usage(keyHash: string, limits: Limits): Promise<WindowReport[]>;
  /** The key's admitted requests per UTC hour over the last 30 days, in one call (its share given back first). */
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
  const shares = new KeyShares();

  /** Covers what the share can, in order, and sends the rest to the object in one call. */
  const decide: DecideHits = async (keyHash, policies) => {
    const now = Date.now();
    const fromShare: HitResult[] = [];
    for (const policy of policies) {
      const admitted = shares.take(keyHash, policy, now);
      if (!admitted) break;
      fromShare.push(admitted);
    }
    const rest = policies.slice(fromShare.length);
    if (rest.length === 0) return fromShare;
    const decision = await reporting(
      keyHash,
      true,
      (reports, share) =>
        call(keyLimiterName(keyHash), (limiter) =>
          limiter.decideKey({ policy: newestPolicy(rest), count: rest.length, reports, share }),
        ),
      (answer) => answer.grant,
    );
    return [...fromShare, ...decision.results];
  };

  /** Makes a call of a key that carries its reports, and holds the share it may bring. */
  async function reporting<T>(
    keyHash: string,
    mayAsk: boolean,
    send: (reports: ShareReport[], share: boolean) => Promise<T>,
    grantOf: (answer: T) => Grant | undefined = () => undefined,
  ): Promise<T> {
    const shareCall = shares.begin(keyHash, Date.now(), mayAsk);
    let answered = false;
    let grant: Grant | undefined;
    try {
      const answer = await send(shareCall.reports, shareCall.share);
      answered = true;
      grant = grantOf(answer);
      return answer;
    } finally {
      shares.finish(keyHash, shareCall, answered, grant);
    }
  }

  /** A read of the key's usage in this isolate first gives back its share, so it is exact here. */
  function givingBack<T>(keyHash: string, read: (reports: ShareReport[]) => Promise<T>) {
    shares.forget(keyHash);
    return reporting(keyHash, false, read);
  }

  const batches = sharesCallsAcrossRequests() ? keyHitBatches(decide) : undefined;
  return {
    async hitKey(keyHash, policy) {
      const admitted = shares.take(keyHash, policy, Date.now());
      if (admitted) return admitted;
      if (!batches) {
        if (shares.asking(keyHash)) await shareArriving(shares, keyHash);
        return (await decide(keyHash, [policy]))[0] as HitResult;
      }
      // Each request has its own timeout, since a batch can wait on the call before it.
      try {
        return await guardStorage("Durable Object", () => batches.hit(keyHash, policy));
      } catch (error) {
        batches.abandon(keyHash);
        shares.forget(keyHash);
        throw error;
      }
    },
    hitKeyless: (clientIp) =>
      call(ipLimiterName(clientIp), (limiter) => limiter.hitKeyless(keylessLimits)),
    peekKeyless: async (clientIp) => ({
      outcome: "allowed",
      windows: await call(ipLimiterName(clientIp), (limiter) => limiter.usage(keylessLimits)),
    }),
    async applyPolicy(keyHash, policy) {
      // Before the push, so no request here spends the share meanwhile; after it, for calls that crossed it.
      shares.forget(keyHash);
      await call(keyLimiterName(keyHash), (limiter) => limiter.applyPolicy(policy));
      shares.forget(keyHash);
    },
    usage: (keyHash, limits) =>
      givingBack(keyHash, (reports) =>
        call(keyLimiterName(keyHash), (limiter) => limiter.usage(limits, reports)),
      ),
    usageHistory: (keyHash) =>
      givingBack(keyHash, (reports) =>
        call(keyLimiterName(keyHash), (limiter) => limiter.usageHistory(reports)),
      ),
    hitNamed: (name, budget) => call(`named:${name}`, (limiter) => limiter.hitBudget(budget)),
  };
}

/**
 * Where requests cannot await one another (see `sharesCallsAcrossRequests`),
 * a request of a key whose share may be on its way polls until it has come,
 * rather than calling beside it: the object would count that share as spent
 * and might refuse the request for it. Bounded by the storage timeout. (The
 * check before it is synchronous, so the request that finds no share coming
 * begins its own call before any other request runs.)
 */
async function shareArriving(shares: KeyShares, keyHash: string): Promise<void> {
  const giveUpAt = Date.now() + STORAGE_TIMEOUT_MS;
  while (shares.asking(keyHash) && Date.now() < giveUpAt) await scheduler.wait(1);
}

/**
 * Whether a request awaiting a promise that another request settles resumes
 * in its own context, which a key's requests sharing one call rely on. Every
 * deployment has it (handle_cross_request_promise_resolution, the default
 * since the 2024-10-14 compatibility date); Vitest's Workers runtime turns it
 * off for its test runner, and there each request makes its own call (see
 * `shareArriving`).
 */
function sharesCallsAcrossRequests(): boolean {
  return Cloudflare.compatibilityFlags.handle_cross_request_promise_resolution === true;
}
