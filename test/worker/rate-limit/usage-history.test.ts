import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RateLimiter } from "../../../src/rate-limit/rate-limiter.ts";
import { seedKey, testServices } from "../support/keys.ts";
import {
  hitKeyIn,
  hoursOf,
  ipLimiter,
  keyLimiter,
  setClock,
  testPolicy,
} from "../support/limiters.ts";
import { MANY_REQUESTS, sendInTurn, tally } from "../support/request.ts";

// The client of the isolate that serves the tests' requests, so its reads give back that isolate's share.
const { limiter } = testServices();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

afterEach(() => vi.useRealTimers());

/** The rows of the object's usage table, straight from its SQLite database. */
function storedHours(stub: DurableObjectStub<RateLimiter>) {
  return runInDurableObject(stub, (_, state) => {
    const exists = state.storage.sql
      .exec("SELECT 1 FROM sqlite_master WHERE name = 'usage_hours'")
      .toArray().length;
    return exists ? state.storage.sql.exec("SELECT hour, count FROM usage_hours").toArray() : [];
  });
}

function scheduledAlarm(stub: DurableObjectStub<RateLimiter>) {
  return runInDurableObject(stub, (_, state) => state.storage.getAlarm());
}

describe("hourly usage history", MANY_REQUESTS, () => {
  it("counts admitted requests per UTC hour and answers them in one call", async () => {
    setClock("2030-06-15T10:15:00Z");
    const { key, hash } = await seedKey({ plan: "free" });
    expect(tally(await sendInTurn(3, "/v1/pets", { key }))).toEqual({ 200: 3 });
    vi.setSystemTime(new Date("2030-06-15T11:59:59Z"));
    expect(tally(await sendInTurn(2, "/v1/pets", { key }))).toEqual({ 200: 2 });
    expect(await hoursOf(limiter, hash)).toEqual([
      { hour: Date.parse("2030-06-15T10:00:00Z"), count: 3 },
      { hour: Date.parse("2030-06-15T11:00:00Z"), count: 2 },
    ]);
  });

  it("keeps one row per hour, however many requests it saw", async () => {
    setClock("2030-06-15T10:15:00Z");
    const { key, hash } = await seedKey({ plan: "free" });
    await sendInTurn(20, "/v1/pets", { key });
    // The hour being counted is kept with the windows; the next hour's first request files it.
    expect(await storedHours(keyLimiter(hash))).toEqual([]);
    vi.setSystemTime(new Date("2030-06-15T11:05:00Z"));
    await sendInTurn(1, "/v1/pets", { key });
    expect(await storedHours(keyLimiter(hash))).toEqual([
      { hour: Date.parse("2030-06-15T10:00:00Z") / HOUR, count: 20 },
    ]);
  });

  it("adds an hour filed in parts (a clean-up ran within it) into one row", async () => {
    setClock("2030-06-15T10:15:00Z");
    const { hash, record } = await seedKey({ plan: "free" });
    const stub = keyLimiter(hash);
    const policy = testPolicy(record.limits, record.version);
    const tenOClock = Date.parse("2030-06-15T10:00:00Z");
    await runInDurableObject(stub, async (instance) => {
      for (let i = 0; i < 3; i += 1) hitKeyIn(instance, policy);
      vi.setSystemTime(new Date("2030-06-15T10:30:00Z"));
      await instance.alarm();
      for (let i = 0; i < 2; i += 1) hitKeyIn(instance, policy);
    });
    expect(await storedHours(stub)).toEqual([{ hour: tenOClock / HOUR, count: 3 }]);
    expect(await hoursOf(limiter, hash)).toEqual([{ hour: tenOClock, count: 5 }]);
    vi.setSystemTime(new Date("2030-06-15T11:00:00Z"));
    await runInDurableObject(stub, (instance) => {
      hitKeyIn(instance, policy);
    });
    expect(await storedHours(stub)).toEqual([{ hour: tenOClock / HOUR, count: 5 }]);
  });

  it("counts only admitted requests: not refused ones, nor a revoked key's", async () => {
    setClock("2030-06-15T10:00:05Z");
    const { key, hash, record } = await seedKey({ plan: "free" });
    expect(tally(await sendInTurn(62, "/v1/pets", { key }))).toEqual({ 200: 60, rate_limited: 2 });
    await limiter.applyPolicy(hash, { ...record, revoked: true, version: record.version + 1 });
    vi.setSystemTime(new Date("2030-06-15T10:05:00Z"));
    expect(tally(await sendInTurn(2, "/v1/pets", { key }))).toEqual({ 401: 2 });
    expect(await hoursOf(limiter, hash)).toEqual([
      { hour: Date.parse("2030-06-15T10:00:00Z"), count: 60 },
    ]);
  });

  it("keeps counting the hour after the object is evicted", async () => {
    setClock("2030-06-15T10:15:00Z");
    const { key, hash } = await seedKey({ plan: "free" });
    await sendInTurn(4, "/v1/pets", { key });
    await evictDurableObject(keyLimiter(hash));
    await sendInTurn(3, "/v1/pets", { key });
    expect(await hoursOf(limiter, hash)).toEqual([
      { hour: Date.parse("2030-06-15T10:00:00Z"), count: 7 },
    ]);
  });

  it("keeps no history for client IPs", async () => {
    setClock("2030-06-15T10:15:00Z");
    const ip = "192.0.2.77";
    await sendInTurn(3, "/v1/pets", { headers: { "CF-Connecting-IP": ip } });
    expect(await storedHours(ipLimiter(ip))).toEqual([]);
  });
});

describe("the 30-day bound", MANY_REQUESTS, () => {
  it("answers today and the 29 days before it, and the alarm drops older days", async () => {
    setClock("2030-06-01T12:00:00Z");
    const { key, hash } = await seedKey({ plan: "free" });
    const stub = keyLimiter(hash);
    // One request at noon on each of 40 days, with the alarm run whenever it is due.
    for (let day = 0; day < 40; day += 1) {
      vi.setSystemTime(new Date(Date.parse("2030-06-01T12:00:00Z") + day * DAY));
      const alarm = await scheduledAlarm(stub);
      if (alarm !== null && alarm <= Date.now()) await runDurableObjectAlarm(stub);
      expect(tally(await sendInTurn(1, "/v1/pets", { key }))).toEqual({ 200: 1 });
    }
    // Now 2030-07-10 12:00: kept are 2030-06-11 (29 days back) to today.
    const history = await hoursOf(limiter, hash);
    expect(history).toHaveLength(30);
    expect(history[0]?.hour).toBe(Date.parse("2030-06-11T12:00:00Z"));
    expect(history.at(-1)?.hour).toBe(Date.parse("2030-07-10T12:00:00Z"));
    expect((await storedHours(stub)).length).toBeLessThanOrEqual(31);
  });

  it("stops answering an hour as soon as its day is out, before the alarm removes it", async () => {
    setClock("2030-06-01T23:30:00Z");
    const { key, hash } = await seedKey({ plan: "free" });
    await sendInTurn(2, "/v1/pets", { key });
    vi.setSystemTime(new Date("2030-06-30T23:59:59Z"));
    expect(await hoursOf(limiter, hash)).toHaveLength(1);
    vi.setSystemTime(new Date("2030-07-01T00:00:00Z"));
    expect(await hoursOf(limiter, hash)).toEqual([]);
  });

  it("a quiet key wakes once its history must shrink, then keeps only its policy and last use", async () => {
    setClock("2030-06-15T10:00:30Z");
    const { key, hash, record } = await seedKey({ plan: "free" });
    await sendInTurn(3, "/v1/pets", { key });
    const stub = keyLimiter(hash);
    expect(await scheduledAlarm(stub)).toBe(Date.parse("2030-06-16T00:00:00Z"));
    vi.setSystemTime(new Date("2030-06-16T00:00:00Z"));
    await runDurableObjectAlarm(stub);
    expect(await scheduledAlarm(stub)).toBe(Date.parse("2030-07-15T00:00:00Z"));
    expect(await storedHours(stub)).toHaveLength(1);

    vi.setSystemTime(new Date("2030-07-15T00:00:00Z"));
    await runDurableObjectAlarm(stub);
    expect(await storedHours(stub)).toEqual([]);
    expect(await scheduledAlarm(stub)).toBeNull();
    const stored = await runInDurableObject(stub, async (_, state) =>
      Object.fromEntries(await state.storage.list()),
    );
    expect(stored).toEqual({
      state: {
        policy: testPolicy(record.limits, record.version),
        lastUse: Date.parse("2030-06-15T10:00:00Z"),
      },
    });
  });

  it("holds at most 720 rows: 30 days of every hour, a few kilobytes", async () => {
    setClock("2030-06-01T00:00:00Z");
    const { hash, record } = await seedKey({ plan: "free" });
    const stub = keyLimiter(hash);
    const policy = testPolicy({ perMinute: 1_000_000, perDay: 1_000_000 }, record.version + 1);
    const sizes = await runInDurableObject(stub, async (instance, state) => {
      const start = Date.parse("2030-06-01T00:00:00Z");
      const before = state.storage.sql.databaseSize;
      // Every hour of 35 days, one request each, then the clean-up of the last one.
      for (let hour = 0; hour < 35 * 24; hour += 1) hitKeyIn(instance, policy, start + hour * HOUR);
      vi.setSystemTime(new Date(start + 35 * DAY - HOUR));
      await instance.alarm();
      const rows = state.storage.sql.exec("SELECT count(*) AS n FROM usage_hours").one().n;
      return { before, after: state.storage.sql.databaseSize, rows };
    });
    expect(sizes.rows).toBe(720);
    // The whole history costs four 4 KiB pages of SQLite (16 KiB), not a copy per request.
    expect(sizes.after - sizes.before).toBeLessThanOrEqual(16 * 1024);
  });
});
