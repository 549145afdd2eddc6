import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { seedKey } from "../support/keys.ts";
import { setClock, unixSeconds } from "../support/limiters.ts";
import { header, MANY_REQUESTS, type Reply, send, sendInTurn } from "../support/request.ts";

const NOW = "2030-06-15T10:00:30Z";
const MINUTE_END = unixSeconds("2030-06-15T10:01:00Z");
const FREE_POLICY = '"minute";q=60;w=60, "day";q=1000;w=86400';

beforeEach(() => setClock(NOW));
afterEach(() => vi.useRealTimers());

function limitHeaders(reply: Reply) {
  return {
    limit: header(reply, "X-RateLimit-Limit"),
    remaining: header(reply, "X-RateLimit-Remaining"),
    reset: header(reply, "X-RateLimit-Reset"),
    policy: header(reply, "RateLimit-Policy"),
    rateLimit: header(reply, "RateLimit"),
  };
}

function freeMinute(remaining: number) {
  return {
    limit: "60",
    remaining: String(remaining),
    reset: String(MINUTE_END),
    policy: FREE_POLICY,
    rateLimit: `"minute";r=${remaining};t=30`,
  };
}

describe("rate-limit headers on every status", MANY_REQUESTS, () => {
  it("count down by one across 200, 201, 400 and 404 replies", async () => {
    const { key } = await seedKey({ plan: "free" });
    const replies = [
      await send("/v1/pets", { key }),
      await send("/v1/pets", { key, method: "POST", json: { name: "Rex", categoryId: 1 } }),
      await send("/v1/pets?limit=0", { key }),
      await send("/v1/pets/999999", { key }),
      await send("/v1/no-such-route", { key }),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([200, 201, 400, 404, 404]);
    replies.forEach((reply, index) => {
      expect(limitHeaders(reply)).toEqual(freeMinute(59 - index));
      expect(header(reply, "Retry-After")).toBeNull();
    });
  });

  it("describe the caller's IP budget on 401 replies", async () => {
    const headers = { "CF-Connecting-IP": "198.51.100.10" };
    const missing = await send("/v1/pets", { headers });
    const unknown = await send("/v1/pets", { headers, key: `ps_test_${"A".repeat(32)}` });
    expect([missing.status, unknown.status]).toEqual([401, 401]);
    [missing, unknown].forEach((reply, index) => {
      expect(limitHeaders(reply)).toEqual({
        limit: "60",
        remaining: String(59 - index),
        reset: String(MINUTE_END),
        policy: '"minute";q=60;w=60',
        rateLimit: `"minute";r=${59 - index};t=30`,
      });
    });
  });

  it("show nothing left and when to retry on 429 replies", async () => {
    const { key } = await seedKey({ plan: "free" });
    const allowed = await sendInTurn(60, "/v1/pets", { key });
    expect(allowed.every((reply) => reply.status === 200)).toBe(true);
    expect(limitHeaders(allowed[59] as Reply)).toEqual(freeMinute(0));
    const refused = await send("/v1/pets", { key });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("rate_limited");
    expect(refused.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(limitHeaders(refused)).toEqual(freeMinute(0));
    expect(header(refused, "Retry-After")).toBe("30");
  });

  it("name the day window when it has fewer requests left than the minute", async () => {
    const { key } = await seedKey({ plan: "enterprise", limits: { perMinute: 1_000, perDay: 25 } });
    const midnight = unixSeconds("2030-06-16T00:00:00Z");
    const secondsToMidnight = midnight - unixSeconds(NOW);
    const first = await send("/v1/pets", { key });
    const second = await send("/v1/pets", { key });
    expect(limitHeaders(first)).toEqual({
      limit: "25",
      remaining: "24",
      reset: String(midnight),
      policy: '"minute";q=1000;w=60, "day";q=25;w=86400',
      rateLimit: `"day";r=24;t=${secondsToMidnight}`,
    });
    expect(header(second, "X-RateLimit-Remaining")).toBe("23");
  });

  it("name the minute window on a tie", async () => {
    const { key } = await seedKey({ plan: "enterprise", limits: { perMinute: 10, perDay: 10 } });
    const reply = await send("/v1/pets", { key });
    expect(limitHeaders(reply)).toEqual({
      limit: "10",
      remaining: "9",
      reset: String(MINUTE_END),
      policy: '"minute";q=10;w=60, "day";q=10;w=86400',
      rateLimit: '"minute";r=9;t=30',
    });
  });
});
