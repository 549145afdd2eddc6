import {
  abortAllDurableObjects,
  evictDurableObject,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { planLimits } from "../../../src/rate-limit/plans.ts";
import { seedKey, testServices } from "../support/keys.ts";
import { ipLimiter, keyLimiter, setClock, testPolicy, windowsOf } from "../support/limiters.ts";
import { header, MANY_REQUESTS, send, sendInTurn, tally } from "../support/request.ts";

// The client of the isolate that serves the tests' requests, so its reads give back that isolate's share.
const { limiter } = testServices();

afterEach(() => vi.useRealTimers());

function storedState(stub: DurableObjectStub) {
  return runInDurableObject(stub, async (_, state) =>
    Object.fromEntries(await state.storage.list()),
  );
}

function scheduledAlarm(stub: DurableObjectStub) {
  return runInDurableObject(stub, (_, state) => state.storage.getAlarm());
}

describe("state outlives the object", MANY_REQUESTS, () => {
  it("keeps counting where it left off after the object is evicted", async () => {
    setClock("2030-06-15T10:00:30Z");
    const { key, hash } = await seedKey({ plan: "free" });
    expect(tally(await sendInTurn(10, "/v1/pets", { key }))).toEqual({ 200: 10 });
    await evictDurableObject(keyLimiter(hash));
    const reply = await send("/v1/pets", { key });
    expect(header(reply, "X-RateLimit-Remaining")).toBe("49");
  });

  it("keeps every request the object decided after it is evicted", async () => {
    setClock("2030-06-15T10:00:30Z");
    const { hash, record } = await seedKey({ plan: "free" });
    const policy = testPolicy(planLimits.free, record.version);
    const results = [];
    for (let i = 0; i < 7; i++) {
      const call = { policy, reports: [], share: false };
      results.push((await keyLimiter(hash).decideKey(call)).result);
    }
    expect(results.map((result) => result.windows[0]?.remaining)).toEqual([
      59, 58, 57, 56, 55, 54, 53,
    ]);
    await evictDurableObject(keyLimiter(hash));
    const [minute] = await windowsOf(limiter, hash, planLimits.free);
    expect(minute?.remaining).toBe(53);
  });

  it("keeps counting where it left off after every object is aborted", async () => {
    setClock("2030-06-15T10:00:30Z");
    const { key } = await seedKey({ plan: "free" });
    expect(tally(await sendInTurn(59, "/v1/pets", { key }))).toEqual({ 200: 59 });
    await abortAllDurableObjects();
    const last = await send("/v1/pets", { key });
    expect(header(last, "X-RateLimit-Remaining")).toBe("0");
    await abortAllDurableObjects();
    const refused = await send("/v1/pets", { key });
    expect(refused.body.code).toBe("rate_limited");
  });

  it("keeps a ban and its remaining time across eviction", async () => {
    setClock("2030-06-15T10:00:05Z");
    const { key, hash } = await seedKey({ plan: "free" });
    await sendInTurn(60, "/v1/pets", { key });
    const refused = await sendInTurn(10, "/v1/pets", { key });
    expect(refused.at(-1)?.body.code).toBe("api_key_banned");
    await evictDurableObject(keyLimiter(hash));
    vi.setSystemTime(new Date("2030-06-15T10:00:35Z"));
    const stillBanned = await send("/v1/pets", { key });
    expect(stillBanned.body.code).toBe("api_key_banned");
    expect(header(stillBanned, "Retry-After")).toBe("30");
  });

  it("keeps a revocation across eviction", async () => {
    const { key, hash, record } = await seedKey({ plan: "free" });
    expect((await send("/v1/pets", { key })).status).toBe(200);
    await limiter.applyPolicy(hash, testPolicy(planLimits.free, record.version + 1, true));
    await evictDurableObject(keyLimiter(hash));
    expect((await send("/v1/pets", { key })).status).toBe(401);
  });
});

describe("alarm clean-up", MANY_REQUESTS, () => {
  it("shrinks a quiet key's storage to its policy and last use once the day is over", async () => {
    setClock("2030-06-15T10:00:30Z");
    const { key, hash, record } = await seedKey({ plan: "free" });
    await sendInTurn(3, "/v1/pets", { key });
    const stub = keyLimiter(hash);
    expect(await scheduledAlarm(stub)).toBe(Date.parse("2030-06-16T00:00:00Z"));
    expect(Object.keys(await storedState(stub))).toEqual(["state"]);

    vi.setSystemTime(new Date("2030-06-16T00:00:00Z"));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const policy = testPolicy(planLimits.free, record.version);
    const lastUse = Date.parse("2030-06-15T10:00:00Z");
    expect(await storedState(stub)).toEqual({ state: { policy, lastUse } });
    // What is left to wake for: the day's usage history leaving the 30 days.
    expect(await scheduledAlarm(stub)).toBe(Date.parse("2030-07-15T00:00:00Z"));
  });

  it("keeps the windows still running when the alarm fires on a busy key", async () => {
    setClock("2030-06-15T10:00:30Z");
    const { key, hash } = await seedKey({ plan: "free" });
    await sendInTurn(3, "/v1/pets", { key });
    vi.setSystemTime(new Date("2030-06-16T00:00:10Z"));
    await sendInTurn(3, "/v1/pets", { key });
    const stub = keyLimiter(hash);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await scheduledAlarm(stub)).toBe(Date.parse("2030-06-17T00:00:00Z"));
    const reply = await send("/v1/pets", { key });
    expect(header(reply, "X-RateLimit-Remaining")).toBe("56");
    const [, day] = await windowsOf(limiter, hash, planLimits.free);
    expect(day?.remaining).toBe(1_000 - 4);
  });

  it("remembers a ban for 24 hours after it ends, then forgets it", async () => {
    setClock("2030-06-15T10:00:05Z");
    const { key, hash, record } = await seedKey({ plan: "free" });
    await sendInTurn(70, "/v1/pets", { key });
    const stub = keyLimiter(hash);
    const banEnds = Date.parse("2030-06-15T10:01:05Z");
    const ban = { until: banEnds, durationMs: 60_000 };

    vi.setSystemTime(new Date("2030-06-16T00:00:00Z"));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const policy = testPolicy(planLimits.free, record.version);
    const lastUse = Date.parse("2030-06-15T10:00:00Z");
    expect(await storedState(stub)).toEqual({ state: { policy, ban, lastUse } });
    expect(await scheduledAlarm(stub)).toBe(banEnds + 86_400_000);

    vi.setSystemTime(new Date(banEnds + 86_400_000));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await storedState(stub)).toEqual({ state: { policy, lastUse } });
    expect(await scheduledAlarm(stub)).toBe(Date.parse("2030-07-15T00:00:00Z"));
  });

  it("schedules the clean-up of a key that held only its policy when it wakes to count", async () => {
    setClock("2030-06-15T10:00:30Z");
    const { key, hash, record } = await seedKey({ plan: "free" });
    await limiter.applyPolicy(hash, testPolicy(planLimits.free, record.version));
    const stub = keyLimiter(hash);
    expect(await scheduledAlarm(stub)).toBeNull();
    await evictDurableObject(stub);
    expect((await send("/v1/pets", { key })).status).toBe(200);
    expect(await scheduledAlarm(stub)).toBe(Date.parse("2030-06-16T00:00:00Z"));
  });

  it("deletes a client IP's object entirely once its minute is over", async () => {
    setClock("2030-06-15T10:00:30Z");
    const ip = "192.0.2.44";
    const reply = await send("/v1/pets", { headers: { "CF-Connecting-IP": ip } });
    expect(reply.status).toBe(401);
    const stub = ipLimiter(ip);
    expect(await scheduledAlarm(stub)).toBe(Date.parse("2030-06-15T10:01:00Z"));
    vi.setSystemTime(new Date("2030-06-15T10:01:00Z"));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await storedState(stub)).toEqual({});
    expect(await scheduledAlarm(stub)).toBeNull();
  });
});
