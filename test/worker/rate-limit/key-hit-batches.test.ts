import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type DecideHits,
  keyHitBatches,
  newestPolicy,
} from "../../../src/rate-limit/key-hit-batches.ts";
import { planLimits } from "../../../src/rate-limit/plans.ts";
import type { HitResult, KeyPolicy } from "../../../src/rate-limit/rate-limit-types.ts";
import { keyLimiter, setClock, testPolicy } from "../support/limiters.ts";
import { MANY_REQUESTS } from "../support/request.ts";

// The batching alone, against each key's real Durable Object, so the size of
// every batch can be seen. Vitest's runtime has each request call alone (see
// rateLimitClient), so real parallel requests go through batches in the
// Node tests, against `npm start` (under-load.test.ts).

beforeEach(() => setClock("2030-06-15T10:00:30Z"));
afterEach(() => vi.useRealTimers());

let keySerial = 0;
const newKeyHash = () => `batch-test-key-${++keySerial}`;

/** The real object's call for a batch, asking for no share, with the size of every batch. */
async function objectDecides(keyHash: string, policies: KeyPolicy[]): Promise<HitResult[]> {
  const call = {
    policy: newestPolicy(policies),
    count: policies.length,
    reports: [],
    share: false,
  };
  return (await keyLimiter(keyHash).decideKey(call)).results;
}

function recordingDecide(): { decide: DecideHits; batches: number[] } {
  const batches: number[] = [];
  const decide: DecideHits = (keyHash, policies) => {
    batches.push(policies.length);
    return objectDecides(keyHash, policies);
  };
  return { decide, batches };
}

const outcomes = (results: HitResult[]) => results.map((result) => result.outcome);
const free = testPolicy(planLimits.free, 1);

describe("batching a key's concurrent requests", MANY_REQUESTS, () => {
  it("decides 150 at once exactly, in arrival order, in far fewer calls", async () => {
    const { decide, batches } = recordingDecide();
    const { hit } = keyHitBatches(decide);
    const keyHash = newKeyHash();
    const results = await Promise.all(Array.from({ length: 150 }, () => hit(keyHash, free)));
    expect(outcomes(results)).toEqual([
      ...Array(60).fill("allowed"),
      ...Array(9).fill("rate_limited"),
      ...Array(81).fill("banned"),
    ]);
    expect(results.slice(0, 60).map((result) => result.windows[0]?.remaining)).toEqual(
      Array.from({ length: 60 }, (_, index) => 59 - index),
    );
    // The first goes alone at once; everything that arrived meanwhile goes next, together.
    expect(batches).toEqual([1, 149]);
  });

  it("sends each key's requests to its own object, batched apart", async () => {
    const { decide, batches } = recordingDecide();
    const { hit } = keyHitBatches(decide);
    const [busy, quiet] = [newKeyHash(), newKeyHash()];
    const results = await Promise.all([
      ...Array.from({ length: 70 }, () => hit(busy, free)),
      ...Array.from({ length: 20 }, () => hit(quiet, free)),
    ]);
    expect(outcomes(results.slice(0, 70))).toEqual([
      ...Array(60).fill("allowed"),
      ...Array(9).fill("rate_limited"),
      "banned",
    ]);
    expect(outcomes(results.slice(70))).toEqual(Array(20).fill("allowed"));
    expect(batches).toEqual([1, 1, 69, 19]);
  });

  it("sends a batch with the newest policy any of its requests brings", async () => {
    const { decide } = recordingDecide();
    const { hit } = keyHitBatches(decide);
    const keyHash = newKeyHash();
    const pro = testPolicy(planLimits.pro, 3);
    const results = await Promise.all([hit(keyHash, free), hit(keyHash, free), hit(keyHash, pro)]);
    expect(results.map((result) => result.windows[0]?.limit)).toEqual([60, 300, 300]);
  });

  it("refuses every request sent after a revocation, batched or not", async () => {
    const { decide } = recordingDecide();
    const { hit } = keyHitBatches(decide);
    const keyHash = newKeyHash();
    const before = Promise.all(Array.from({ length: 10 }, () => hit(keyHash, free)));
    await keyLimiter(keyHash).applyPolicy(testPolicy(planLimits.free, 2, true));
    const after = await Promise.all(Array.from({ length: 10 }, () => hit(keyHash, free)));
    expect(outcomes(after)).toEqual(Array(10).fill("revoked"));
    // Those sent before may have been decided either side of it, but in order.
    expect(outcomes(await before).join(" ")).toMatch(/^(allowed ?)*(revoked ?)*$/);
  });

  it("fails every request of a failed call, and the next batch still goes", async () => {
    const batches: number[] = [];
    let calls = 0;
    const decide: DecideHits = async (keyHash, policies) => {
      batches.push(policies.length);
      calls += 1;
      if (calls === 2) throw new Error("object unreachable");
      return objectDecides(keyHash, policies);
    };
    const { hit } = keyHitBatches(decide);
    const keyHash = newKeyHash();
    const settled = await Promise.allSettled(Array.from({ length: 5 }, () => hit(keyHash, free)));
    expect(settled.map((result) => result.status)).toEqual([
      "fulfilled",
      "rejected",
      "rejected",
      "rejected",
      "rejected",
    ]);
    const later = await Promise.all([hit(keyHash, free), hit(keyHash, free)]);
    expect(outcomes(later)).toEqual(["allowed", "allowed"]);
    expect(batches).toEqual([1, 4, 1, 1]);
    // Only the requests the object answered were counted.
    expect(later[1]?.windows[0]?.remaining).toBe(57);
  });

  it("starts the key afresh when its waiting requests give up on a call that never returns", async () => {
    const batches: number[] = [];
    const decide: DecideHits = (keyHash, policies) => {
      batches.push(policies.length);
      // The first call hangs, as one whose sender's client went away might.
      if (batches.length === 1) return new Promise<never>(() => {});
      return objectDecides(keyHash, policies);
    };
    const { hit, abandon } = keyHitBatches(decide);
    const keyHash = newKeyHash();
    void hit(keyHash, free);
    void hit(keyHash, free);
    abandon(keyHash);
    const results = await Promise.all([hit(keyHash, free), hit(keyHash, free)]);
    expect(outcomes(results)).toEqual(["allowed", "allowed"]);
    expect(batches).toEqual([1, 1, 1]);
  });
});
