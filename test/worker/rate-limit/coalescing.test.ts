import { describe, expect, it } from "vitest";
import { revokeKey } from "../../../src/accounts/account-changes.ts";
import { coalescedHit, type SendBatch } from "../../../src/rate-limit/coalesced-hits.ts";
import type { HitResult, KeyPolicy } from "../../../src/rate-limit/rate-limit-types.ts";
import { seedKey, testServices } from "../support/keys.ts";
import { MANY_REQUESTS, sendAll, tally } from "../support/request.ts";

const policy: KeyPolicy = {
  limits: { perMinute: 1_000, perDay: 10_000 },
  revoked: false,
  version: 1,
};

/**
 * A stand-in for the key's object that decides like it (one count per request,
 * in order) and records each call, so the batching itself can be watched.
 */
function countingObject(delayMs = 2) {
  const calls: number[] = [];
  let counted = 0;
  const send: SendBatch = async (_policy, count) => {
    calls.push(count);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return Array.from({ length: count }, (): HitResult => {
      counted += 1;
      return {
        outcome: "allowed",
        windows: [
          { name: "minute", limit: 1_000, remaining: 1_000 - counted, reset: 0, lengthSeconds: 60 },
        ],
      };
    });
  };
  return { send, calls, counted: () => counted };
}

describe("coalescing one key's limiter calls in an isolate", () => {
  it("decides every request once, in arrival order, in far fewer calls", async () => {
    const object = countingObject();
    const answers = await Promise.all(
      Array.from({ length: 60 }, () => coalescedHit("busy", policy, object.send, 5_000)),
    );
    expect(object.counted()).toBe(60);
    expect(object.calls.reduce((a, b) => a + b, 0)).toBe(60);
    expect(object.calls.length).toBeLessThanOrEqual(3);
    const remaining = answers.map((answer) => answer.windows[0]?.remaining);
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => 999 - i));
  });

  it("calls at once for a request that finds no call in flight", async () => {
    const object = countingObject();
    await coalescedHit("quiet", policy, object.send, 5_000);
    await coalescedHit("quiet", policy, object.send, 5_000);
    expect(object.calls).toEqual([1, 1]);
  });

  it("keeps keys apart", async () => {
    const first = countingObject();
    const second = countingObject();
    await Promise.all([
      ...Array.from({ length: 5 }, () => coalescedHit("first", policy, first.send, 5_000)),
      ...Array.from({ length: 7 }, () => coalescedHit("second", policy, second.send, 5_000)),
    ]);
    expect(first.counted()).toBe(5);
    expect(second.counted()).toBe(7);
  });

  it("gives every member of a failed call its error, and the next request calls afresh", async () => {
    const failure = new Error("object unreachable");
    let fail = true;
    const object = countingObject();
    const send: SendBatch = (p, count) => (fail ? Promise.reject(failure) : object.send(p, count));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => coalescedHit("failing", policy, send, 5_000)),
    );
    expect(
      outcomes.every((outcome) => outcome.status === "rejected" && outcome.reason === failure),
    ).toBe(true);
    fail = false;
    await expect(coalescedHit("failing", policy, send, 5_000)).resolves.toMatchObject({
      outcome: "allowed",
    });
  });

  it("moves on when a call in flight never returns: a waiting request calls anew after the wait", async () => {
    const object = countingObject();
    let first = true;
    const send: SendBatch = (p, count) => {
      if (!first) return object.send(p, count);
      first = false;
      return new Promise(() => {});
    };
    void coalescedHit("lost", policy, send, 50);
    const started = Date.now();
    await expect(coalescedHit("lost", policy, send, 50)).resolves.toMatchObject({
      outcome: "allowed",
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect(object.calls).toEqual([1]);
  });
});

describe("a call that answers too late", () => {
  it("fails every request in it instead of sending them again, and the line moves on", async () => {
    const object = countingObject();
    const late = countingObject(200);
    let calls = 0;
    const send: SendBatch = (p, count) => {
      calls += 1;
      // The second call (the first sender is alone) is the batch that is lost.
      return calls === 2 ? late.send(p, count) : object.send(p, count);
    };
    const first = coalescedHit("stranded", policy, send, 50);
    const lostPair = [
      coalescedHit("stranded", policy, send, 50),
      coalescedHit("stranded", policy, send, 50),
    ];
    await first;
    const outcomes = await Promise.allSettled(lostPair);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected"]);
    await expect(coalescedHit("stranded", policy, send, 50)).resolves.toMatchObject({
      outcome: "allowed",
    });
    expect(object.counted()).toBe(2);
  });
});

describe("through the Worker", MANY_REQUESTS, () => {
  it("a key revoked while its requests wait in line is refused from the next call on", async () => {
    const { key, hash } = await seedKey({
      plan: "enterprise",
      limits: { perMinute: 10_000, perDay: 100_000 },
    });
    expect(tally(await sendAll(100, "/v1/pets", { key }))).toEqual({ 200: 100 });
    await revokeKey(testServices(), hash);
    expect(tally(await sendAll(100, "/v1/pets", { key }))).toEqual({ 401: 100 });
  });
});
