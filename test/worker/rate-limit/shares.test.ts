import { evictDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { revokeKey } from "../../../src/keys/key-changes.ts";
import { planLimits } from "../../../src/rate-limit/plans.ts";
import type { HitResult, KeyPolicy } from "../../../src/rate-limit/rate-limit-types.ts";
import { shareSize } from "../../../src/rate-limit/share-size.ts";
import { seedKey, testServices } from "../support/keys.ts";
import {
  holdShare,
  hoursOf,
  type Isolate,
  isolate,
  keyLimiter,
  setClock,
  testPolicy,
  windowsOf,
} from "../support/limiters.ts";
import { header, MANY_REQUESTS, send, sendAll, sendInTurn, tally } from "../support/request.ts";

// Each client made here stands for one isolate: its own shares, over the real objects.

const NOW = "2030-06-15T10:00:30Z";
beforeEach(() => setClock(NOW));
afterEach(() => vi.useRealTimers());

const later = (ms: number) => vi.setSystemTime(new Date(Date.now() + ms));
const remaining = (result: HitResult) => result.windows[0]?.remaining;
const count = (results: HitResult[], outcome: HitResult["outcome"]) =>
  results.filter((result) => result.outcome === outcome).length;

/** Sends requests one at a time until one is refused; returns every result. */
async function untilRefused(at: Isolate, hash: string, policy: KeyPolicy): Promise<HitResult[]> {
  const results: HitResult[] = [];
  while (results.at(-1)?.outcome !== "rate_limited") {
    results.push(await at.client.hitKey(hash, policy));
    if (results.length > 100) throw new Error("never refused");
  }
  return results;
}

describe("one isolate", MANY_REQUESTS, () => {
  it("admits exactly 60 of 250 parallel requests at the window's edge, banning on the 10th refusal", async () => {
    setClock("2030-06-15T10:00:59.400Z");
    const { key } = await seedKey({ plan: "free" });
    const replies = await sendAll(250, "/v1/pets", { key });
    expect(tally(replies)).toEqual({ 200: 60, rate_limited: 9, api_key_banned: 181 });
    const left = replies
      .filter((reply) => reply.status === 200)
      .map((reply) => header(reply, "X-RateLimit-Remaining"));
    expect(new Set(left)).toEqual(new Set(Array.from({ length: 60 }, (_, n) => String(n))));
  });

  it("decides a burst exactly, admitting part of it from shares without calling the object", async () => {
    const { hash, record } = await seedKey({ plan: "free" });
    const policy = testPolicy(record.limits, record.version);
    const at = isolate();
    const results = await Promise.all(
      Array.from({ length: 250 }, () => at.client.hitKey(hash, policy)),
    );
    expect(count(results, "allowed")).toBe(60);
    expect(count(results, "rate_limited")).toBe(9);
    expect(count(results, "banned")).toBe(181);
    // Headers are exact with one isolate: each admission saw a different number left.
    const left = results.filter((result) => result.outcome === "allowed").map(remaining);
    expect(new Set(left).size).toBe(60);
    expect(Math.min(...(left as number[]))).toBe(0);
    // Each call decides one request: those the shares did not cover.
    const decidedByObject = at.calls.map((entry) => entry.decision.result);
    expect(decidedByObject.length).toBeLessThan(results.length);
    expect(count(decidedByObject, "allowed")).toBeLessThan(60);
    expect(at.calls.some((entry) => entry.decision.grant)).toBe(true);
  });

  it("makes no call while its share lasts, and asks again once the share's second is over", async () => {
    const { hash, record } = await seedKey({ plan: "business" });
    const policy = testPolicy(record.limits, record.version);
    const at = isolate();
    const { size } = await holdShare(at, hash, policy, 3);
    const calls = at.calls.length;
    for (let i = 0; i < size; i++) await at.client.hitKey(hash, policy);
    expect(at.calls).toHaveLength(calls);
    await at.client.hitKey(hash, policy);
    expect(at.calls).toHaveLength(calls + 1);
    expect(at.calls.at(-1)?.call.reports).toEqual([
      { grant: at.calls[calls - 1]?.decision.grant?.id, used: size },
    ]);
  });
});

describe("two isolates", MANY_REQUESTS, () => {
  it("never admit past the limit together, and one is refused while the other holds share", async () => {
    const { hash, record } = await seedKey({ plan: "free" });
    const policy = testPolicy(record.limits, record.version);
    const [a, b] = [isolate(), isolate()];
    const held = await holdShare(a, hash, policy, 4);
    const refusedB = await untilRefused(b, hash, policy);
    const callsA = a.calls.length;
    // A's share, spent from the object's point of view, still admits A's requests without a call.
    expect((await a.client.hitKey(hash, policy)).outcome).toBe("allowed");
    expect(a.calls).toHaveLength(callsA);
    const restA = await untilRefused(a, hash, policy);
    const admitted = held.sent + 1 + count(refusedB, "allowed") + count(restA, "allowed");
    expect(admitted).toBe(60);
  });

  it("give each isolate headers too high by at most what the other admitted since its last contact", async () => {
    const { hash, record } = await seedKey({ plan: "business" });
    const policy = testPolicy(record.limits, record.version);
    const [a, b] = [isolate(), isolate()];
    const heldA = await holdShare(a, hash, policy, 3);
    const heldB = await holdShare(b, hash, policy, 3);
    const sinceB = [await a.client.hitKey(hash, policy), await a.client.hitKey(hash, policy)];
    expect(sinceB.map((result) => result.outcome)).toEqual(["allowed", "allowed"]);
    const seenByB = await b.client.hitKey(hash, policy);
    const admitted = heldA.sent + heldB.sent + 2 + 1;
    const truth = 1_000 - admitted;
    expect(remaining(seenByB)).toBeLessThanOrEqual(truth + 2);
    // B's own admissions are always counted: it never shows more than it could know of.
    expect(remaining(seenByB)).toBeGreaterThanOrEqual(truth - heldA.size);
  });
});

describe("changes reach a share's holder", MANY_REQUESTS, () => {
  it("revocation: within the share's second elsewhere, from the next request where it was made", async () => {
    const { hash, record } = await seedKey({ plan: "business" });
    const policy = testPolicy(record.limits, record.version);
    const revoked = testPolicy(record.limits, record.version + 1, true);
    const [holder, writer] = [isolate(), isolate()];
    await holdShare(holder, hash, policy, 3);
    await writer.client.applyPolicy(hash, revoked);
    expect((await holder.client.hitKey(hash, policy)).outcome).toBe("allowed");
    later(1_000);
    expect((await holder.client.hitKey(hash, policy)).outcome).toBe("revoked");

    const { hash: other, record: otherRecord } = await seedKey({ plan: "business" });
    const otherPolicy = testPolicy(otherRecord.limits, otherRecord.version);
    await holdShare(writer, other, otherPolicy, 3);
    await writer.client.applyPolicy(
      other,
      testPolicy(otherRecord.limits, otherRecord.version + 1, true),
    );
    expect((await writer.client.hitKey(other, otherPolicy)).outcome).toBe("revoked");
  });

  it("revocation over HTTP: 401 from the next request of the isolate holding a share", async () => {
    const { key, hash } = await seedKey({ plan: "business" });
    expect(tally(await sendInTurn(10, "/v1/pets", { key }))).toEqual({ 200: 10 });
    await revokeKey(testServices(), hash);
    expect((await send("/v1/pets", { key })).status).toBe(401);
  });

  it("a lowered plan: grants after it follow it, the share before it lives out its second", async () => {
    const { hash, record } = await seedKey({ plan: "business" });
    const policy = testPolicy(record.limits, record.version);
    const [holder, writer] = [isolate(), isolate()];
    for (let i = 0; i < 70; i++) await holder.client.hitKey(hash, policy);
    await holdShare(holder, hash, policy, 3);
    await writer.client.applyPolicy(hash, testPolicy(planLimits.free, record.version + 1));
    const fromShare = await holder.client.hitKey(hash, policy);
    expect(fromShare.outcome).toBe("allowed");
    expect(fromShare.windows[0]?.limit).toBe(1_000);
    later(1_000);
    const after = await holder.client.hitKey(hash, policy);
    expect(after.outcome).toBe("rate_limited");
    expect(after.windows[0]?.limit).toBe(60);
  });

  it("a ban: the other isolate's share lives out its second, then it is banned and gets none", async () => {
    const { hash, record } = await seedKey({ plan: "free" });
    const policy = testPolicy(record.limits, record.version);
    const [holder, other] = [isolate(), isolate()];
    await holdShare(holder, hash, policy, 4);
    await untilRefused(other, hash, policy);
    const refusals = [];
    for (let i = 0; i < 9; i++) refusals.push(await other.client.hitKey(hash, policy));
    expect(refusals.map((result) => result.outcome)).toEqual([
      ...Array(8).fill("rate_limited"),
      "banned",
    ]);
    expect((await holder.client.hitKey(hash, policy)).outcome).toBe("allowed");
    later(1_000);
    expect((await holder.client.hitKey(hash, policy)).outcome).toBe("banned");
    expect(holder.calls.at(-1)?.decision.grant).toBeUndefined();
  });
});

describe("restarts and usage history", MANY_REQUESTS, () => {
  it("counts a share as used across a restart until its holder reports, then gives it back", async () => {
    const { hash, record } = await seedKey({ plan: "free" });
    const policy = testPolicy(record.limits, record.version);
    const [holder, reader] = [isolate(), isolate()];
    const held = await holdShare(holder, hash, policy, 4);
    await evictDurableObject(keyLimiter(hash));
    const [minute] = await windowsOf(reader.client, hash, planLimits.free);
    expect(minute?.remaining).toBe(60 - held.sent - held.size);
    later(1_000);
    const reported = await holder.client.hitKey(hash, policy);
    expect(remaining(reported)).toBe(60 - held.sent - 1);
  });

  it("counts a share's unreported remainder in its hour, and takes it out once reported", async () => {
    setClock("2030-06-15T10:15:00Z");
    const { hash, record } = await seedKey({ plan: "free" });
    const policy = testPolicy(record.limits, record.version);
    const [holder, reader] = [isolate(), isolate()];
    const held = await holdShare(holder, hash, policy, 4);
    const tenOClock = Date.parse("2030-06-15T10:00:00Z");
    expect(await hoursOf(reader.client, hash)).toEqual([
      { hour: tenOClock, count: held.sent + held.size },
    ]);
    await holder.client.hitKey(hash, policy);
    expect(await hoursOf(holder.client, hash)).toEqual([{ hour: tenOClock, count: held.sent + 1 }]);
  });

  it("takes a share reported after its hour was filed out of that hour's row", async () => {
    setClock("2030-06-15T10:59:58Z");
    const { hash, record } = await seedKey({ plan: "free" });
    const policy = testPolicy(record.limits, record.version);
    const [holder, other] = [isolate(), isolate()];
    const held = await holdShare(holder, hash, policy, 4);
    vi.setSystemTime(new Date("2030-06-15T11:00:01Z"));
    await other.client.hitKey(hash, policy);
    await holder.client.hitKey(hash, policy);
    // Read where the holder is, so the share its last request may have brought is given back too.
    expect(await hoursOf(holder.client, hash)).toEqual([
      { hour: Date.parse("2030-06-15T10:00:00Z"), count: held.sent },
      { hour: Date.parse("2030-06-15T11:00:00Z"), count: 2 },
    ]);
  });
});

describe("share sizes", () => {
  const window = (remaining: number, endsIn = 30_000) => ({ remaining, endsAt: 1_000 + endsIn });
  const inputs = { perSecond: 100, outstanding: 0, expiresAt: undefined, now: 1_000 };

  it("follow the recent rate over a second", () => {
    expect(shareSize({ ...inputs, windows: [window(500), window(900)] })).toEqual({
      size: 100,
      lifeMs: 1_000,
    });
  });

  it("shrink as a window runs out, in time and in requests left", () => {
    expect(shareSize({ ...inputs, windows: [window(500, 250)] })).toEqual({
      size: 25,
      lifeMs: 250,
    });
    expect(shareSize({ ...inputs, windows: [window(500), window(30)] })).toEqual({
      size: 15,
      lifeMs: 1_000,
    });
    expect(shareSize({ ...inputs, expiresAt: 1_500, windows: [window(500)] })?.lifeMs).toBe(500);
  });

  it("are none for a rate of one request per share, or once what is left is twice what is out", () => {
    expect(shareSize({ ...inputs, perSecond: 1, windows: [window(500)] })).toBeUndefined();
    expect(shareSize({ ...inputs, outstanding: 20, windows: [window(40)] })).toBeUndefined();
    expect(shareSize({ ...inputs, outstanding: 20, windows: [window(41)] })?.size).toBe(20);
    expect(shareSize({ ...inputs, windows: [window(3)] })).toBeUndefined();
  });
});
