import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { STORAGE_TIMEOUT_MS } from "../../../src/storage/storage-guard.ts";
import { expectError } from "../support/assertions.ts";
import { failingD1, failingKV, failingLimiter, hangingD1 } from "../support/faulty-bindings.ts";
import { seedKey } from "../support/keys.ts";
import { captureLogs, storageFailure, storageFaultLines } from "../support/logs.ts";
import { api } from "../support/request.ts";

const newPet = JSON.stringify({ name: "Rex", categoryId: 7 });
const post = { method: "POST", body: newPet, headers: { "Content-Type": "application/json" } };

const logs = captureLogs();

async function petCount(): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM pets").first<{ n: number }>();
  return row?.n ?? -1;
}

async function expectUnavailable(res: Response): Promise<void> {
  expect(res.headers.get("Retry-After")).toMatch(/^[1-9][0-9]*$/);
  await expectError(res, 503, "unavailable");
}

describe("a failing D1", () => {
  it("answers 503 with Retry-After on every operation, and adds no animal", async () => {
    const { key } = await seedKey();
    const before = await petCount();
    await expectUnavailable(await api("/v1/pets", { key, bindings: { DB: failingD1() } }));
    await expectUnavailable(await api("/v1/pets/1", { key, bindings: { DB: failingD1() } }));
    await expectUnavailable(await api("/v1/pets", { ...post, key, bindings: { DB: failingD1() } }));
    await expectUnavailable(
      await api("/v1/pets", {
        ...post,
        key,
        headers: { ...post.headers, "Idempotency-Key": "fault-1" },
        bindings: { DB: failingD1() },
      }),
    );
    expect(await petCount()).toBe(before);
    expect(logs.lines).toContainEqual(storageFailure("D1"));
    // The store's words are logged, never the query or the animal it carried.
    expect(JSON.stringify(logs.lines)).not.toMatch(/select|insert|Rex/i);
  });

  it("answers 503 when D1 does not answer in time", async () => {
    const { key } = await seedKey();
    // The guard waits on the runtime's scheduler, which Vitest's fake clock cannot move:
    // here a wait of the guard's whole timeout ends once D1 hangs, rather than 5 s later,
    // and the test checks the guard asked for exactly that wait.
    let hung = () => {};
    const hanging = new Promise<void>((resolve) => {
      hung = resolve;
    });
    const wait = scheduler.wait.bind(scheduler);
    const waits = vi
      .spyOn(scheduler, "wait")
      .mockImplementation((ms) => (ms === STORAGE_TIMEOUT_MS ? hanging : wait(ms)));
    await expectUnavailable(await api("/v1/pets", { key, bindings: { DB: hangingD1(hung) } }));
    expect(waits).toHaveBeenCalledWith(STORAGE_TIMEOUT_MS);
    expect(logs.lines).toEqual(
      storageFaultLines("D1", 1).map((line, index) =>
        index === 0
          ? expect.objectContaining({
              store: "D1",
              error: `StorageTimeout: D1 did not answer within ${STORAGE_TIMEOUT_MS} ms`,
            })
          : line,
      ),
    );
  });
});

describe("a failing KV", () => {
  it("answers 503, not 401, when the key record cannot be read", async () => {
    const { key } = await seedKey();
    await expectUnavailable(await api("/v1/pets", { key, bindings: { API_KEYS: failingKV() } }));
    const healthy = await api("/v1/pets", { key });
    expect(healthy.status).toBe(200);
    await healthy.json();
    expect(logs.lines).toContainEqual(storageFailure("KV"));
  });
});

describe("a failing rate limiter", () => {
  it("fails closed: 503 for keyed and keyless requests, and nothing is created", async () => {
    const { key } = await seedKey();
    const before = await petCount();
    const limiter = { RATE_LIMITER: failingLimiter() };
    await expectUnavailable(await api("/v1/pets", { key, bindings: limiter }));
    await expectUnavailable(await api("/v1/pets", { ...post, key, bindings: limiter }));
    await expectUnavailable(await api("/v1/pets", { bindings: limiter }));
    expect(await petCount()).toBe(before);
    expect(logs.lines).toContainEqual(storageFailure("Durable Object"));
  });
});
