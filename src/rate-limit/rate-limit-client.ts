import { guardStorage, STORAGE_TIMEOUT_MS } from "../storage/storage-guard.ts";
import { KeyShares } from "./key-shares.ts";
import type { Limits } from "./plans.ts";
import { keylessLimits } from "./plans.ts";
import type {
  Budget,
  Grant,
  HitResult,
  KeyPolicy,
  KeyReport,
  ShareReport,
} from "./rate-limit-types.ts";
import type { RateLimiter } from "./rate-limiter.ts";

/** The only way the rest of the Worker reaches the RateLimiter Durable Object. */
export interface RateLimitClient {
  /**
   * Decides one request of a key: from this isolate's share of the key's
   * budget when it holds one (see KeyShares), else by the key's object.
   */
  hitKey(keyHash: string, policy: KeyPolicy): Promise<HitResult>;
  hitKeyless(clientIp: string): Promise<HitResult>;
  /** The client IP's keyless budget as it stands, counting nothing. */
  peekKeyless(clientIp: string): Promise<HitResult>;
  /** Pushes a change of the key to its object; this isolate's share of the key ends at once. */
  applyPolicy(keyHash: string, policy: KeyPolicy): Promise<void>;
  /** The key's windows, hourly history and last use, in one call (this isolate's share given back first). */
  keyReport(keyHash: string, limits: Limits): Promise<KeyReport>;
  /** Counts one attempt against a named budget (a minute or an hour window), for throttling. */
  hitNamed(name: string, budget: Budget): Promise<HitResult>;
  /** The start of the minute the key last admitted a request (Unix ms), or undefined; one call. */
  lastUse(keyHash: string): Promise<number | undefined>;
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

  return {
    async hitKey(keyHash, policy) {
      const admitted = shares.take(keyHash, policy, Date.now());
      if (admitted) return admitted;
      if (shares.asking(keyHash)) {
        await shareArriving(shares, keyHash);
        const fromShare = shares.take(keyHash, policy, Date.now());
        if (fromShare) return fromShare;
      }
      const decision = await reporting(
        keyHash,
        true,
        (reports, share) =>
          call(keyLimiterName(keyHash), (limiter) => limiter.decideKey({ policy, reports, share })),
        (answer) => answer.grant,
      );
      return decision.result;
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
    keyReport: (keyHash, limits) =>
      givingBack(keyHash, (reports) =>
        call(keyLimiterName(keyHash), (limiter) => limiter.keyReport(limits, reports)),
      ),
    hitNamed: (name, budget) => call(`named:${name}`, (limiter) => limiter.hitBudget(budget)),
    lastUse: (keyHash) => call(keyLimiterName(keyHash), (limiter) => limiter.lastUse()),
  };
}

/**
 * A request of a key whose share may be on its way waits until it has come,
 * rather than calling beside it: the object would count that share as spent
 * and might refuse the request for it. It polls its own timer, which every
 * runtime allows (Vitest's Workers runtime does not let a request resume on
 * another request's promise), and gives up at the storage timeout. (The
 * check before it is synchronous, so the request that finds no share coming
 * begins its own call before any other request runs.) Coalescing a key's
 * concurrent calls into one as well earned nothing beside shares: without
 * it, nine paired rounds (test/bench/compare-builds.ts) served 1.04
 * (0.82–1.49) of the requests a second with it from one busy key, and 1.00
 * (0.76–1.78) from 100 keys in turn.
 */
async function shareArriving(shares: KeyShares, keyHash: string): Promise<void> {
  const giveUpAt = Date.now() + STORAGE_TIMEOUT_MS;
  while (shares.asking(keyHash) && Date.now() < giveUpAt) await scheduler.wait(1);
}
