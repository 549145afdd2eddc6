import { env } from "cloudflare:test";
import { vi } from "vitest";
import { ipLimiterName, keyLimiterName } from "../../../src/rate-limit/rate-limit-client.ts";
import type { KeyPolicy } from "../../../src/rate-limit/rate-limit-types.ts";
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

/** A policy as the key's Durable Object receives it. */
export function testPolicy(
  limits: KeyPolicy["limits"],
  version: number,
  revoked = false,
): KeyPolicy {
  return { limits, revoked, version };
}
