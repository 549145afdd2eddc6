import { env } from "cloudflare:test";
import { vi } from "vitest";
import type { Limits } from "../../../src/rate-limit/plans.ts";
import { ipLimiterName, keyLimiterName } from "../../../src/rate-limit/rate-limit-client.ts";
import type {
  KeyCall,
  KeyDecision,
  KeyPolicy,
  ShareReport,
} from "../../../src/rate-limit/rate-limit-types.ts";
import type { RateLimiter } from "../../../src/rate-limit/rate-limiter.ts";

/** The key's own RateLimiter, named as the rate-limit client names it. */
export function keyLimiter(hash: string): DurableObjectStub<RateLimiter> {
  return env.RATE_LIMITER.getByName(keyLimiterName(hash));
}

/** The RateLimiter that holds one client IP's keyless budget. */
export function ipLimiter(ip: string): DurableObjectStub<RateLimiter> {
  return env.RATE_LIMITER.getByName(ipLimiterName(ip));
}

/**
 * Stops the clock at `iso` for the test and the Durable Objects alike: the
 * objects of the main worker run in the test's isolate, so they read the same
 * faked `Date` (rate-limit/windows.test.ts checks that it is so).
 */
export function setClock(iso: string): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(iso));
}

export function unixSeconds(iso: string): number {
  return Date.parse(iso) / 1000;
}

/** One request of a key decided inside its object, as a client's call without reports or share. */
export function hitKeyIn(instance: RateLimiter, policy: KeyPolicy, now?: number) {
  return instance.decideKey({ policy, reports: [], share: false }, now).result;
}

/** A policy as the key's Durable Object receives it. */
export function testPolicy(
  limits: KeyPolicy["limits"],
  version: number,
  revoked = false,
): KeyPolicy {
  return { limits, revoked, version };
}

/**
 * The real RateLimiter namespace, with every `decideKey` call a client makes
 * recorded with its answer: how many calls a client's requests cost, and
 * what shares they brought back.
 */
export function recordingLimiters(): {
  namespace: Env["RATE_LIMITER"];
  calls: { call: KeyCall; decision: KeyDecision }[];
} {
  const calls: { call: KeyCall; decision: KeyDecision }[] = [];
  const namespace = {
    idFromName: (name: string) => env.RATE_LIMITER.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = env.RATE_LIMITER.get(id);
      return {
        decideKey: async (call: KeyCall) => {
          const decision = await stub.decideKey(call);
          calls.push({ call, decision });
          return decision;
        },
        applyPolicy: (policy: KeyPolicy) => stub.applyPolicy(policy),
        usage: (limits: Limits, reports: ShareReport[]) => stub.usage(limits, reports),
        usageHistory: (reports: ShareReport[]) => stub.usageHistory(reports),
      };
    },
  };
  return { namespace: namespace as unknown as Env["RATE_LIMITER"], calls };
}
