import { env } from "cloudflare:test";
import { expect, vi } from "vitest";
import { type Limits, planLimits } from "../../../src/rate-limit/plans.ts";
import {
  ipLimiterName,
  keyLimiterName,
  rateLimitClient,
} from "../../../src/rate-limit/rate-limit-client.ts";
import type {
  KeyCall,
  KeyDecision,
  KeyPolicy,
  ShareReport,
  WindowReport,
} from "../../../src/rate-limit/rate-limit-types.ts";
import type { RateLimiter } from "../../../src/rate-limit/rate-limiter.ts";
import type { HourCount } from "../../../src/rate-limit/usage-history.ts";
import { SCOPES } from "../../../src/scopes.ts";

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
  return { limits, revoked, scopes: [...SCOPES], version };
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
        keyReport: (limits: Limits, reports: ShareReport[]) => stub.keyReport(limits, reports),
      };
    },
  };
  return { namespace: namespace as unknown as Env["RATE_LIMITER"], calls };
}

/** The key's windows as a client reads them (with the rest of its report, in one call), counting nothing. */
export async function windowsOf(
  client: Pick<ReturnType<typeof rateLimitClient>, "keyReport">,
  hash: string,
  limits: Limits,
): Promise<WindowReport[]> {
  return (await client.keyReport(hash, limits)).windows;
}

/** The key's hourly history as a client reads it (with the rest of its report, in one call). */
export async function hoursOf(
  client: Pick<ReturnType<typeof rateLimitClient>, "keyReport">,
  hash: string,
): Promise<HourCount[]> {
  return (await client.keyReport(hash, planLimits.free)).hours;
}

/** A limiter client standing for one isolate: its own shares, over the real objects. */
export interface Isolate {
  client: ReturnType<typeof rateLimitClient>;
  /** Every call it made to a key's object, with the answer. */
  calls: ReturnType<typeof recordingLimiters>["calls"];
}

export function isolate(): Isolate {
  const { namespace, calls } = recordingLimiters();
  return { client: rateLimitClient(namespace), calls };
}

/**
 * Sends the key's requests one at a time until a call brings back a share of
 * at least `atLeast`; returns how many it sent and the share's size.
 */
export async function holdShare(at: Isolate, hash: string, policy: KeyPolicy, atLeast = 2) {
  for (let sent = 1; sent <= 100; sent++) {
    const before = at.calls.length;
    expect((await at.client.hitKey(hash, policy)).outcome).toBe("allowed");
    const grant = at.calls.length > before ? at.calls.at(-1)?.decision.grant : undefined;
    if (grant && grant.size >= atLeast) return { sent, size: grant.size, grant };
  }
  throw new Error("no share came back");
}
