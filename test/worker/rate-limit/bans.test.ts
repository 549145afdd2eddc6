import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { rateLimitClient } from "../../../src/rate-limit/rate-limit-client.ts";
import { DAY_MS, MINUTE_MS } from "../../../src/rate-limit/windows.ts";
import { seedKey } from "../support/keys.ts";
import { hitKeyIn, keyLimiter, setClock, testPolicy, windowsOf } from "../support/limiters.ts";
import { header, MANY_REQUESTS, send, sendInTurn, tally } from "../support/request.ts";

const FREE = { perMinute: 60, perDay: 1_000 };
const limiter = rateLimitClient(env.RATE_LIMITER);

afterEach(() => vi.useRealTimers());

/** Spends the minute window, then sends the ten refused requests that earn a ban. */
async function earnBan(key: string) {
  expect(tally(await sendInTurn(60, "/v1/pets", { key }))).toEqual({ 200: 60 });
  const refused = await sendInTurn(10, "/v1/pets", { key });
  expect(tally(refused)).toEqual({ rate_limited: 9, api_key_banned: 1 });
  return refused[9];
}

describe("bans over HTTP", MANY_REQUESTS, () => {
  it("bans a key for 60 s on its 10th refused request in a window", async () => {
    setClock("2030-06-15T10:00:05Z");
    const { key } = await seedKey({ plan: "free" });
    const banned = await earnBan(key);
    expect(banned?.status).toBe(429);
    expect(banned?.body).toMatchObject({ code: "api_key_banned", status: 429 });
    expect(banned && header(banned, "Retry-After")).toBe("60");
    expect(banned && header(banned, "X-RateLimit-Remaining")).toBe("0");
  });

  it("refuses everything during the ban without touching the window counts", async () => {
    setClock("2030-06-15T10:00:05Z");
    const { key, hash } = await seedKey({ plan: "free" });
    await earnBan(key);
    const before = await windowsOf(limiter, hash, FREE);

    vi.setSystemTime(new Date("2030-06-15T10:00:25Z"));
    const during = await sendInTurn(5, "/v1/pets", { key });
    expect(tally(during)).toEqual({ api_key_banned: 5 });
    expect(during.map((reply) => header(reply, "Retry-After"))).toEqual(Array(5).fill("40"));
    expect(await windowsOf(limiter, hash, FREE)).toEqual(before);

    // Into the next minute, whose window is empty, but still inside the ban.
    vi.setSystemTime(new Date("2030-06-15T10:01:04Z"));
    const lateDuring = await send("/v1/pets", { key });
    expect(lateDuring.body.code).toBe("api_key_banned");
    expect(header(lateDuring, "Retry-After")).toBe("1");
    const [minute, day] = await windowsOf(limiter, hash, FREE);
    expect(minute?.remaining).toBe(60);
    expect(day?.remaining).toBe(940);

    vi.setSystemTime(new Date("2030-06-15T10:01:05Z"));
    const after = await send("/v1/pets", { key });
    expect(after.status).toBe(200);
    expect(header(after, "X-RateLimit-Remaining")).toBe("59");
  });

  it("doubles a second ban within 24 hours to 120 s", async () => {
    setClock("2030-06-15T10:00:05Z");
    const { key } = await seedKey({ plan: "free" });
    await earnBan(key);
    vi.setSystemTime(new Date("2030-06-15T10:01:05Z"));
    const second = await earnBan(key);
    expect(second && header(second, "Retry-After")).toBe("120");
    vi.setSystemTime(new Date("2030-06-15T10:03:05Z"));
    const third = await earnBan(key);
    expect(third && header(third, "Retry-After")).toBe("240");
  });

  it("describes the ban, not a window, in the rate-limit headers while it lasts", async () => {
    setClock("2030-06-15T10:00:05Z");
    const { key } = await seedKey({ plan: "free" });
    const windows = '"minute";q=60;w=60, "day";q=1000;w=86400';
    const seconds = (instant: string) => String(Date.parse(instant) / 1000);
    const fields = (reply: Awaited<ReturnType<typeof send>>) =>
      ["X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit", "RateLimit-Policy"].map((name) =>
        header(reply, name),
      );
    const banned = await earnBan(key);
    expect(banned && fields(banned)).toEqual([
      "0",
      seconds("2030-06-15T10:01:05Z"),
      '"ban";r=0;t=60',
      `${windows}, "ban";q=0;w=60`,
    ]);
    vi.setSystemTime(new Date("2030-06-15T10:00:25Z"));
    expect(fields(await send("/v1/pets", { key }))).toEqual([
      "0",
      seconds("2030-06-15T10:01:05Z"),
      '"ban";r=0;t=40',
      `${windows}, "ban";q=0;w=60`,
    ]);
    vi.setSystemTime(new Date("2030-06-15T10:01:05Z"));
    const second = await earnBan(key);
    vi.setSystemTime(new Date("2030-06-15T10:02:00Z"));
    expect(second && header(second, "RateLimit-Policy")).toBe(`${windows}, "ban";q=0;w=120`);
    expect(fields(await send("/v1/pets", { key }))).toEqual([
      "0",
      seconds("2030-06-15T10:03:05Z"),
      '"ban";r=0;t=65',
      `${windows}, "ban";q=0;w=120`,
    ]);
    vi.setSystemTime(new Date("2030-06-15T10:03:05Z"));
    const after = await send("/v1/pets", { key });
    expect(after.status).toBe(200);
    expect(header(after, "RateLimit-Policy")).toBe(windows);
  });

  it("never bans keyless callers, however often they are refused", async () => {
    setClock("2030-06-15T10:00:05Z");
    const headers = { "CF-Connecting-IP": "203.0.113.77" };
    const replies = await sendInTurn(90, "/v1/pets", { headers });
    expect(tally(replies)).toEqual({ 401: 60, rate_limited: 30 });
  });
});

describe("ban escalation in the Durable Object (driven through its `now` parameter)", () => {
  // Far enough ahead that alarms the object sets never fire during the run.
  const start = Date.parse("2030-06-15T10:00:05Z");
  const policy = testPolicy({ perMinute: 1, perDay: 1_000_000 }, 1);

  it("doubles each ban from 1 minute up to a cap of 24 hours, which it keeps", async () => {
    const stub = keyLimiter("escalation");
    const durations = await runInDurableObject(stub, (instance) => {
      const seen: number[] = [];
      let now = start;
      for (let round = 0; round < 14; round++) {
        expect(hitKeyIn(instance, policy, now).outcome).toBe("allowed");
        for (let refusal = 1; refusal < 10; refusal++) {
          expect(hitKeyIn(instance, policy, now).outcome).toBe("rate_limited");
        }
        const ban = hitKeyIn(instance, policy, now);
        expect(ban.outcome).toBe("banned");
        seen.push(ban.retryAfter ?? 0);
        now += (ban.retryAfter ?? 0) * 1000;
      }
      return seen;
    });
    const minutes = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1440, 1440, 1440];
    expect(durations).toEqual(minutes.map((m) => m * 60));
  });

  it("starts over at 1 minute once 24 hours pass after a ban ends", async () => {
    const stub = keyLimiter("forgiven");
    const durations = await runInDurableObject(stub, (instance) => {
      const banAt = (now: number) => {
        hitKeyIn(instance, policy, now);
        for (let refusal = 1; refusal < 10; refusal++) hitKeyIn(instance, policy, now);
        return hitKeyIn(instance, policy, now).retryAfter;
      };
      const first = banAt(start);
      const second = banAt(start + MINUTE_MS);
      const secondEnds = start + 3 * MINUTE_MS;
      const justWithin = banAt(secondEnds + DAY_MS - MINUTE_MS);
      const thirdEnds = secondEnds + DAY_MS - MINUTE_MS + 4 * MINUTE_MS;
      const forgotten = banAt(thirdEnds + DAY_MS);
      return [first, second, justWithin, forgotten];
    });
    expect(durations).toEqual([60, 120, 240, 60]);
  });
});
