import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { seedKey, testServices } from "../support/keys.ts";
import { setClock, windowsOf } from "../support/limiters.ts";
import { MANY_REQUESTS, sendAll, tally } from "../support/request.ts";

// The client of the isolate that serves the tests' requests, so its reads give back that isolate's share.
const { limiter } = testServices();

// Frozen mid-minute, so no burst can straddle a window boundary.
beforeEach(() => setClock("2030-06-15T10:00:30Z"));
afterEach(() => vi.useRealTimers());

describe("counting under concurrency", MANY_REQUESTS, () => {
  it("gives a fresh Free key exactly 60 of 150 parallel requests", async () => {
    const { key } = await seedKey({ plan: "free" });
    const replies = await sendAll(150, "/v1/pets", { key });
    // The 10th refusal in the window bans the key, so the rest are refused as banned.
    expect(tally(replies)).toEqual({ 200: 60, rate_limited: 9, api_key_banned: 81 });
  });

  it("gives an Enterprise key exactly its tiny day limit of 150 parallel requests", async () => {
    const limits = { perMinute: 1_000, perDay: 7 };
    const { key, hash } = await seedKey({ plan: "enterprise", limits });
    const replies = await sendAll(150, "/v1/pets", { key });
    expect(tally(replies)).toEqual({ 200: 7, rate_limited: 9, api_key_banned: 134 });
    // Requests the day window refused took nothing from the minute window.
    const [minute, day] = await windowsOf(limiter, hash, limits);
    expect(minute?.remaining).toBe(993);
    expect(day?.remaining).toBe(0);
  });

  it("takes nothing from the day window for requests the minute window refused", async () => {
    const limits = { perMinute: 5, perDay: 1_000 };
    const { key, hash } = await seedKey({ plan: "enterprise", limits });
    const replies = await sendAll(150, "/v1/pets", { key });
    expect(tally(replies)).toEqual({ 200: 5, rate_limited: 9, api_key_banned: 136 });
    const [minute, day] = await windowsOf(limiter, hash, limits);
    expect(minute?.remaining).toBe(0);
    expect(day?.remaining).toBe(995);
  });

  it("counts 4xx replies as well as successes", async () => {
    const { key } = await seedKey({ plan: "free" });
    const replies = await sendAll(150, "/v1/pets?limit=0", { key });
    expect(tally(replies)).toEqual({ 400: 60, rate_limited: 9, api_key_banned: 81 });
  });
});

describe("keys are counted apart", MANY_REQUESTS, () => {
  it("leaves another key's counts alone while one key is exhausted and banned", async () => {
    const busy = await seedKey({ plan: "free" });
    const quiet = await seedKey({ plan: "free" });
    const [busyReplies, quietReplies] = await Promise.all([
      sendAll(100, "/v1/pets", { key: busy.key }),
      sendAll(20, "/v1/pets", { key: quiet.key }),
    ]);
    expect(tally(busyReplies)).toEqual({ 200: 60, rate_limited: 9, api_key_banned: 31 });
    expect(tally(quietReplies)).toEqual({ 200: 20 });
    const [minute, day] = await windowsOf(limiter, quiet.hash, { perMinute: 60, perDay: 1_000 });
    expect(minute?.remaining).toBe(40);
    expect(day?.remaining).toBe(980);
  });
});
