import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { rateLimitClient } from "../../../src/rate-limit/rate-limit-client.ts";
import { seedKey } from "../support/keys.ts";
import { keyLimiter, setClock, unixSeconds, windowsOf } from "../support/limiters.ts";
import { header, MANY_REQUESTS, send, sendInTurn, tally } from "../support/request.ts";

const limiter = rateLimitClient(env.RATE_LIMITER);

afterEach(() => vi.useRealTimers());

describe("the controlled clock", () => {
  it("is the one the Durable Object reads", async () => {
    setClock("2030-06-15T10:00:30Z");
    const { key, hash } = await seedKey({ plan: "free" });
    const reply = await send("/v1/pets", { key });
    // The window's end is worked out inside the object from its own Date.now().
    expect(header(reply, "X-RateLimit-Reset")).toBe(String(unixSeconds("2030-06-15T10:01:00Z")));
    const seenByObject = await runInDurableObject(keyLimiter(hash), () => Date.now());
    expect(seenByObject).toBe(Date.parse("2030-06-15T10:00:30Z"));
  });
});

describe("the minute window", MANY_REQUESTS, () => {
  it("refuses until the next UTC minute, then starts over while the day keeps counting", async () => {
    setClock("2030-06-15T10:00:20Z");
    const { key, hash } = await seedKey({ plan: "free" });
    expect(tally(await sendInTurn(60, "/v1/pets", { key }))).toEqual({ 200: 60 });

    const early = await send("/v1/pets", { key });
    expect(early.status).toBe(429);
    expect(header(early, "Retry-After")).toBe("40");
    expect(header(early, "X-RateLimit-Reset")).toBe(String(unixSeconds("2030-06-15T10:01:00Z")));

    vi.setSystemTime(new Date("2030-06-15T10:00:59.200Z"));
    const late = await send("/v1/pets", { key });
    expect(late.status).toBe(429);
    // 0.8 s left rounds up to a whole second, never down to 0.
    expect(header(late, "Retry-After")).toBe("1");
    expect(header(late, "RateLimit")).toBe('"minute";r=0;t=1');

    vi.setSystemTime(new Date("2030-06-15T10:01:00Z"));
    const next = await send("/v1/pets", { key });
    expect(next.status).toBe(200);
    expect(header(next, "X-RateLimit-Remaining")).toBe("59");
    expect(header(next, "X-RateLimit-Reset")).toBe(String(unixSeconds("2030-06-15T10:02:00Z")));
    expect(header(next, "RateLimit")).toBe('"minute";r=59;t=60');
    const [, day] = await windowsOf(limiter, hash, { perMinute: 60, perDay: 1_000 });
    expect(day?.remaining).toBe(1_000 - 61);
  });
});

describe("the day window", MANY_REQUESTS, () => {
  it("refuses until the next UTC midnight, then starts over", async () => {
    setClock("2030-06-15T18:00:00Z");
    const { key } = await seedKey({ plan: "enterprise", limits: { perMinute: 1_000, perDay: 5 } });
    expect(tally(await sendInTurn(5, "/v1/pets", { key }))).toEqual({ 200: 5 });

    const evening = await send("/v1/pets", { key });
    expect(evening.status).toBe(429);
    expect(evening.body.code).toBe("rate_limited");
    expect(header(evening, "Retry-After")).toBe(String(6 * 60 * 60));
    expect(header(evening, "X-RateLimit-Limit")).toBe("5");
    expect(header(evening, "X-RateLimit-Remaining")).toBe("0");
    expect(header(evening, "X-RateLimit-Reset")).toBe(String(unixSeconds("2030-06-16T00:00:00Z")));
    expect(header(evening, "RateLimit")).toBe(`"day";r=0;t=${6 * 60 * 60}`);

    vi.setSystemTime(new Date("2030-06-15T23:59:30Z"));
    const lastMinute = await send("/v1/pets", { key });
    expect(lastMinute.status).toBe(429);
    expect(header(lastMinute, "Retry-After")).toBe("30");

    vi.setSystemTime(new Date("2030-06-16T00:00:00Z"));
    const tomorrow = await send("/v1/pets", { key });
    expect(tomorrow.status).toBe(200);
    expect(header(tomorrow, "X-RateLimit-Remaining")).toBe("4");
    expect(header(tomorrow, "X-RateLimit-Reset")).toBe(String(unixSeconds("2030-06-17T00:00:00Z")));
  });

  it("waits for, and names, the later of the two windows when both are full", async () => {
    setClock("2030-06-15T10:00:10Z");
    const { key } = await seedKey({ plan: "enterprise", limits: { perMinute: 3, perDay: 3 } });
    expect(tally(await sendInTurn(3, "/v1/pets", { key }))).toEqual({ 200: 3 });
    vi.setSystemTime(new Date("2030-06-15T10:00:40Z"));
    const refused = await send("/v1/pets", { key });
    expect(refused.status).toBe(429);
    const untilMidnight = unixSeconds("2030-06-16T00:00:00Z") - unixSeconds("2030-06-15T10:00:40Z");
    expect(header(refused, "Retry-After")).toBe(String(untilMidnight));
    expect(header(refused, "X-RateLimit-Reset")).toBe(String(unixSeconds("2030-06-16T00:00:00Z")));
    expect(header(refused, "RateLimit")).toBe(`"day";r=0;t=${untilMidnight}`);
  });
});
