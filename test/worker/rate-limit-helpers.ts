import { env } from "cloudflare:test";
import { vi } from "vitest";
import type { KeyPolicy } from "../../src/rate-limit/rate-limit-types.ts";
import type { RateLimiter } from "../../src/rate-limit/rate-limiter.ts";
import { type ApiRequestInit, api } from "./helpers.ts";

/** The key's own RateLimiter, named as the rate-limit client names it. */
export function keyLimiter(hash: string): DurableObjectStub<RateLimiter> {
  return env.RATE_LIMITER.getByName(`key:${hash}`);
}

/** The RateLimiter that holds one client IP's keyless budget. */
export function ipLimiter(ip: string): DurableObjectStub<RateLimiter> {
  return env.RATE_LIMITER.getByName(`ip:${ip}`);
}

/**
 * Stops the clock at `iso` for the test and the Durable Objects alike: the
 * objects of the main worker run in the test's isolate, so they read the same
 * faked `Date` (rate-limit-windows.test.ts checks that it is so).
 */
export function setClock(iso: string): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(iso));
}

/** For tests that send scores of requests: a couple of seconds alone, more beside other files. */
export const MANY_REQUESTS = { timeout: 30_000 };

export function unixSeconds(iso: string): number {
  return Date.parse(iso) / 1000;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: { code?: string } & Record<string, unknown>;
}

/** Sends one request and reads its whole body, so no response is left unconsumed. */
export async function send(path: string, init: ApiRequestInit = {}): Promise<Reply> {
  const response = await api(path, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
}

/** Sends `count` requests at once and returns the replies in order. */
export function sendAll(count: number, path: string, init: ApiRequestInit = {}): Promise<Reply[]> {
  return Promise.all(Array.from({ length: count }, () => send(path, init)));
}

/** Sends `count` requests one after another. */
export async function sendInTurn(
  count: number,
  path: string,
  init: ApiRequestInit = {},
): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; i < count; i++) replies.push(await send(path, init));
  return replies;
}

/** How many replies had each status (and each 429 its code), e.g. { 200: 60, rate_limited: 9 }. */
export function tally(replies: Reply[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const reply of replies) {
    const label = reply.status === 429 ? String(reply.body.code) : String(reply.status);
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

export function header(reply: Reply, name: string): string | null {
  return reply.headers.get(name);
}

export function policyOf(limits: KeyPolicy["limits"], version: number, revoked = false): KeyPolicy {
  return { limits, revoked, version };
}
