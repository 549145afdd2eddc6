import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { rateLimitClient } from "../../../src/rate-limit/rate-limit-client.ts";
import { setClock, unixSeconds } from "../support/limiters.ts";

const limiter = rateLimitClient(env.RATE_LIMITER);
const namedLimiter = (name: string) => env.RATE_LIMITER.getByName(`named:${name}`);

afterEach(() => vi.useRealTimers());

async function outcomes(name: string, count: number, limit: number, per: "minute" | "hour") {
  const results = [];
  for (let i = 0; i < count; i += 1) results.push(await limiter.hitNamed(name, { limit, per }));
  return results;
}

describe("named budgets", () => {
  it("count attempts in the UTC hour and refuse the rest until it ends", async () => {
    setClock("2030-06-15T10:45:00Z");
    const results = await outcomes("hourly-a", 4, 3, "hour");
    expect(results.map((result) => result.outcome)).toEqual([
      "allowed",
      "allowed",
      "allowed",
      "rate_limited",
    ]);
    expect(results[3]?.retryAfter).toBe(15 * 60);
    expect(results[0]?.windows).toEqual([
      {
        name: "hour",
        limit: 3,
        remaining: 2,
        reset: unixSeconds("2030-06-15T11:00:00Z"),
        lengthSeconds: 3600,
      },
    ]);

    vi.setSystemTime(new Date("2030-06-15T11:00:00Z"));
    expect((await limiter.hitNamed("hourly-a", { limit: 3, per: "hour" })).outcome).toBe("allowed");
  });

  it("never ban, however many attempts are refused", async () => {
    setClock("2030-06-15T10:00:00Z");
    const results = await outcomes("hourly-b", 30, 1, "hour");
    expect(new Set(results.slice(1).map((result) => result.outcome))).toEqual(
      new Set(["rate_limited"]),
    );
  });

  it("keep a minute budget apart from the hour", async () => {
    setClock("2030-06-15T10:00:30Z");
    const results = await outcomes("minutely", 3, 2, "minute");
    expect(results.map((result) => result.outcome)).toEqual(["allowed", "allowed", "rate_limited"]);
    expect(results[2]?.retryAfter).toBe(30);
    expect(results[2]?.windows[0]?.name).toBe("minute");
  });

  it("leave nothing stored once their hour is over", async () => {
    setClock("2030-06-15T10:10:00Z");
    await outcomes("hourly-c", 2, 5, "hour");
    const stub = namedLimiter("hourly-c");
    expect(await runInDurableObject(stub, (_, state) => state.storage.getAlarm())).toBe(
      Date.parse("2030-06-15T11:00:00Z"),
    );
    vi.setSystemTime(new Date("2030-06-15T11:00:00Z"));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const stored = await runInDurableObject(stub, async (_, state) =>
      Object.fromEntries(await state.storage.list()),
    );
    expect(stored).toEqual({});
  });
});
