import { describe, expect, it } from "vitest";
import { rateLimitHeaders } from "../../../src/rate-limit/rate-limit-headers.ts";
import type { HitResult, WindowReport } from "../../../src/rate-limit/rate-limit-types.ts";
import {
  currentWindow,
  DAY_MS,
  isBanForgotten,
  MINUTE_MS,
  nextBanDuration,
  secondsUntil,
  windowEnd,
  windowStart,
} from "../../../src/rate-limit/windows.ts";

const NOON = Date.parse("2030-06-15T12:00:00Z");

describe("windows", () => {
  it("align to the UTC minute and the UTC day", () => {
    const now = Date.parse("2030-06-15T12:34:56.789Z");
    expect(windowStart(now, MINUTE_MS)).toBe(Date.parse("2030-06-15T12:34:00Z"));
    expect(windowStart(now, DAY_MS)).toBe(Date.parse("2030-06-15T00:00:00Z"));
  });

  it("keep a current count and start a stale one over", () => {
    const stored = { start: NOON, count: 7, refused: 2 };
    expect(currentWindow(stored, NOON + 59_999, MINUTE_MS)).toBe(stored);
    expect(currentWindow(stored, NOON + MINUTE_MS, MINUTE_MS)).toEqual({
      start: NOON + MINUTE_MS,
      count: 0,
      refused: 0,
    });
    expect(windowEnd(stored, MINUTE_MS)).toBe(NOON + MINUTE_MS);
  });

  it("round waits up to whole seconds, never below one", () => {
    expect(secondsUntil(NOON + 1_000, NOON)).toBe(1);
    expect(secondsUntil(NOON + 1_001, NOON)).toBe(2);
    expect(secondsUntil(NOON + 1, NOON)).toBe(1);
    expect(secondsUntil(NOON, NOON)).toBe(1);
  });
});

describe("bans", () => {
  it("start at one minute, double while remembered and stop at a day", () => {
    expect(nextBanDuration(undefined, NOON)).toBe(MINUTE_MS);
    expect(nextBanDuration({ until: NOON, durationMs: MINUTE_MS }, NOON)).toBe(2 * MINUTE_MS);
    expect(nextBanDuration({ until: NOON, durationMs: 16 * 60 * MINUTE_MS }, NOON)).toBe(DAY_MS);
    expect(nextBanDuration({ until: NOON, durationMs: DAY_MS }, NOON)).toBe(DAY_MS);
  });

  it("are forgotten a full day after the previous one ended", () => {
    const ban = { until: NOON, durationMs: 4 * MINUTE_MS };
    expect(isBanForgotten(ban, NOON + DAY_MS - 1)).toBe(false);
    expect(nextBanDuration(ban, NOON + DAY_MS - 1)).toBe(8 * MINUTE_MS);
    expect(isBanForgotten(ban, NOON + DAY_MS)).toBe(true);
    expect(nextBanDuration(ban, NOON + DAY_MS)).toBe(MINUTE_MS);
  });
});

describe("rate-limit headers", () => {
  const now = NOON + 20_500;
  const minute = (remaining: number): WindowReport => ({
    name: "minute",
    limit: 60,
    remaining,
    reset: (NOON + MINUTE_MS) / 1000,
    lengthSeconds: 60,
  });
  const day = (remaining: number): WindowReport => ({
    name: "day",
    limit: 1_000,
    remaining,
    reset: Date.parse("2030-06-16T00:00:00Z") / 1000,
    lengthSeconds: 86_400,
  });
  const allowed = (...windows: WindowReport[]): HitResult => ({ outcome: "allowed", windows });

  it("describe the window with fewer requests left, t in seconds until it resets", () => {
    expect(rateLimitHeaders(allowed(minute(12), day(400)), now)).toEqual({
      "X-RateLimit-Limit": "60",
      "X-RateLimit-Remaining": "12",
      "X-RateLimit-Reset": String((NOON + MINUTE_MS) / 1000),
      "RateLimit-Policy": '"minute";q=60;w=60, "day";q=1000;w=86400',
      RateLimit: '"minute";r=12;t=40',
    });
    expect(rateLimitHeaders(allowed(minute(12), day(3)), now).RateLimit).toBe('"day";r=3;t=43180');
  });

  it("prefer the minute on a tie", () => {
    expect(rateLimitHeaders(allowed(minute(5), day(5)), now).RateLimit).toBe('"minute";r=5;t=40');
  });

  it("show nothing left and Retry-After on a refusal, even during a ban with room left", () => {
    const banned: HitResult = {
      outcome: "banned",
      windows: [minute(30), day(400)],
      retryAfter: 45,
    };
    const headers = rateLimitHeaders(banned, now);
    expect(headers["X-RateLimit-Remaining"]).toBe("0");
    expect(headers["Retry-After"]).toBe("45");
    expect(headers["X-RateLimit-Reset"]).toBe(String(Math.floor(now / 1000) + 45));
    expect(headers.RateLimit).toBe('"minute";r=0;t=45');
  });

  it("name the window that stays shut longest when both are full", () => {
    const refused: HitResult = {
      outcome: "rate_limited",
      windows: [minute(0), day(0)],
      retryAfter: 43_180,
    };
    expect(rateLimitHeaders(refused, now).RateLimit).toBe('"day";r=0;t=43180');
  });
});
