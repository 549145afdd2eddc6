import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createCategory, expectError } from "../support/assertions.ts";
import { seedKey, seedUnlimitedKey } from "../support/keys.ts";
import { api } from "../support/request.ts";
import { runScheduled } from "../support/scheduled.ts";

afterEach(() => {
  vi.useRealTimers();
});

function create(key: string, idempotencyKey: string, json: unknown): Promise<Response> {
  return api("/v1/pets", {
    method: "POST",
    key,
    json,
    headers: { "Idempotency-Key": idempotencyKey },
  });
}

/** A category of each test's own, so counting the animals in it counts only that test's. */
const categories = new Map<number, number>();

beforeAll(async () => {
  const { key } = await seedKey();
  for (let test = 1; test <= 8; test++) {
    categories.set(test, (await createCategory(key, `Counted ${test}`)).id);
  }
});

function category(test: number): number {
  const id = categories.get(test);
  if (id === undefined) throw new Error(`no category for test ${test}`);
  return id;
}

async function countByCategory(categoryId: number): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM pets WHERE category_id = ?")
    .bind(categoryId)
    .first<{ n: number }>();
  return row?.n ?? -1;
}

describe("Idempotency-Key on POST /v1/pets", () => {
  it("replays the first response for the same key and body, and adds nothing", async () => {
    const { key } = await seedKey();
    const body = { name: "Rex", categoryId: category(1) };
    const first = await create(key, "replay-1", body);
    const firstBody = await first.json();
    expect(first.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();

    const again = await create(key, "replay-1", { categoryId: category(1), name: "Rex" });
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual(firstBody);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(await countByCategory(category(1))).toBe(1);
  });

  it("refuses the same key with a different body with 422", async () => {
    const { key } = await seedKey();
    const first = await create(key, "reuse-1", { name: "Rex", categoryId: category(2) });
    expect(first.status).toBe(201);
    await first.json();
    const other = await create(key, "reuse-1", { name: "Max", categoryId: category(2) });
    await expectError(other, 422, "idempotency_key_reused");
    const otherStatus = await create(key, "reuse-1", {
      name: "Rex",
      categoryId: category(2),
      status: "sold",
    });
    await expectError(otherStatus, 422, "idempotency_key_reused");
    expect(await countByCategory(category(2))).toBe(1);
  });

  it("creates exactly one animal from 20 concurrent requests with one key", async () => {
    const { key } = await seedKey();
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        create(key, "race-1", { name: "Rex", categoryId: category(3) }),
      ),
    );
    const bodies = await Promise.all(
      replies.map((reply) => reply.json() as Promise<{ id: number }>),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(201));
    expect(new Set(bodies.map((body) => body.id)).size).toBe(1);
    const replayed = replies.filter((reply) => reply.headers.get("Idempotent-Replayed") === "true");
    expect(replayed).toHaveLength(19);
    expect(await countByCategory(category(3))).toBe(1);
  });

  it("scopes keys to the API key that sent them", async () => {
    const alice = await seedKey();
    const bob = await seedKey();
    const body = { name: "Rex", categoryId: category(4) };
    const fromAlice = await create(alice.key, "shared-1", body);
    const fromBob = await create(bob.key, "shared-1", body);
    const [a, b] = [
      (await fromAlice.json()) as { id: number },
      (await fromBob.json()) as { id: number },
    ];
    expect(a.id).not.toBe(b.id);
    expect(fromBob.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await countByCategory(category(4))).toBe(2);
  });

  it("does not spend the key on a request that failed validation", async () => {
    const { key } = await seedKey();
    await expectError(
      await create(key, "invalid-1", { name: "", categoryId: category(5) }),
      400,
      "invalid_request",
      { paths: ["name"] },
    );
    const valid = await create(key, "invalid-1", { name: "Rex", categoryId: category(5) });
    expect(valid.status).toBe(201);
    await valid.json();
  });

  it("forgets a key after 24 hours: the same key then creates a new animal", async () => {
    const { key } = await seedUnlimitedKey();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2031-03-01T10:00:00Z"));
    const body = { name: "Rex", categoryId: category(6) };
    const first = (await (await create(key, "expiry-1", body)).json()) as { id: number };

    vi.setSystemTime(new Date("2031-03-02T09:59:59Z"));
    const within = await create(key, "expiry-1", body);
    expect(((await within.json()) as { id: number }).id).toBe(first.id);
    expect(within.headers.get("Idempotent-Replayed")).toBe("true");

    vi.setSystemTime(new Date("2031-03-02T10:00:01Z"));
    const after = await create(key, "expiry-1", body);
    expect(after.status).toBe(201);
    expect(after.headers.get("Idempotent-Replayed")).toBeNull();
    expect(((await after.json()) as { id: number }).id).not.toBe(first.id);
    expect(await countByCategory(category(6))).toBe(2);
  });

  it("removes expired records on the hourly schedule and keeps fresh ones", async () => {
    const { key } = await seedUnlimitedKey();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2031-04-01T00:00:00Z"));
    await (await create(key, "sweep-old", { name: "Old", categoryId: category(7) })).json();
    vi.setSystemTime(new Date("2031-04-01T23:00:00Z"));
    await (await create(key, "sweep-new", { name: "New", categoryId: category(7) })).json();

    vi.setSystemTime(new Date("2031-04-02T01:00:00Z"));
    await runScheduled();
    const { results } = await env.DB.prepare(
      "SELECT idempotency_key FROM idempotency_records WHERE idempotency_key LIKE 'sweep-%'",
    ).all<{ idempotency_key: string }>();
    expect(results.map((row) => row.idempotency_key)).toEqual(["sweep-new"]);
  });

  it("refuses malformed keys with 400", async () => {
    const { key } = await seedKey();
    for (const bad of ["", "k".repeat(256), "caf\u00e9", "tab\there"]) {
      const res = await create(key, bad, { name: "Rex", categoryId: category(8) });
      const body = await expectError(res, 400, "invalid_request", { paths: ["Idempotency-Key"] });
      expect(body.details?.[0]?.path).toBe("Idempotency-Key");
    }
    const longest = await create(key, "k".repeat(255), { name: "Rex", categoryId: category(8) });
    expect(longest.status).toBe(201);
    await longest.json();
    expect(await countByCategory(category(8))).toBe(1);
  });
});
