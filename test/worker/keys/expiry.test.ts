import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { rollKey } from "../../../src/keys/key-changes.ts";
import { keyRecordName } from "../../../src/keys/key-format.ts";
import { policyOf } from "../../../src/keys/key-projection.ts";
import { ROLL_GRACE_MS } from "../../../src/keys/keys.queries.ts";
import { expectError } from "../support/assertions.ts";
import { seedKey, testServices } from "../support/keys.ts";
import { holdShare, isolate, setClock } from "../support/limiters.ts";
import { api, MANY_REQUESTS, send, sendInTurn, tally } from "../support/request.ts";

const ADMIN = { Authorization: "Bearer test-admin-token-of-at-least-32-characters" };
/** Longer than the isolate keeps a key's record, so the next request reads KV again. */
const CACHE_EXPIRED_MS = 11 * 60_000;
const at = (iso: string) => vi.setSystemTime(new Date(iso));

afterEach(() => vi.useRealTimers());

async function makeKey(json: Record<string, unknown>) {
  const made = await send("/admin/keys", { method: "POST", headers: ADMIN, json });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body as { key: string; hash: string; expiresAt: string | null; status: string };
}

/** What a change leaves behind: the key's row in D1 and its record in KV. */
async function storedKey(hash: string) {
  const row = await env.DB.prepare(
    "SELECT version, synced_version, expires_at FROM api_keys WHERE hash = ?",
  )
    .bind(hash)
    .first();
  return { row, record: await env.API_KEYS.get(keyRecordName(hash)) };
}

describe("a key made to expire", () => {
  it("works until its instant and is dead from it on, with nothing written", async () => {
    setClock("2030-06-15T10:00:00Z");
    const made = await makeKey({ expiresInSeconds: 90 });
    expect(made.expiresAt).toBe("2030-06-15T10:01:30.000Z");
    expect((await send("/v1/pets?limit=1", { key: made.key })).status).toBe(200);
    at("2030-06-15T10:01:29.999Z");
    expect((await send("/v1/pets?limit=1", { key: made.key })).status).toBe(200);
    const before = await storedKey(made.hash);

    at("2030-06-15T10:01:30Z");
    const dead = await api("/v1/pets?limit=1", { key: made.key });
    expect(dead.headers.get("WWW-Authenticate")).toBe(
      'Bearer realm="petstore", error="invalid_token"',
    );
    expect(dead.headers.get("Retry-After")).toBeNull();
    await expectError(dead, 401, "unauthorized");
    expect(await storedKey(made.hash)).toEqual(before);

    for (const later of [1_000, CACHE_EXPIRED_MS, 400 * 24 * 3_600_000]) {
      vi.setSystemTime(Date.now() + later);
      expect((await send("/v1/pets?limit=1", { key: made.key })).status).toBe(401);
    }
  });

  it("is dead for every operation, as a revoked key is", async () => {
    setClock("2030-06-15T10:00:00Z");
    const made = await makeKey({ expiresInSeconds: 60 });
    at("2030-06-15T10:01:00Z");
    for (const [path, method] of [
      ["/v1/pets", "POST"],
      ["/v1/store/orders", "GET"],
      ["/v1/events", "GET"],
      ["/v1/webhooks", "GET"],
    ] as const) {
      await expectError(await api(path, { method, key: made.key }), 401, "unauthorized");
    }
  });

  it("stays dead whatever comes later: a plan change, or a stale policy pushed to its object", async () => {
    setClock("2030-06-15T10:00:00Z");
    const { key, hash, record } = await seedKey({ plan: "free", expiresInSeconds: 60 });
    at("2030-06-15T10:01:00Z");
    const moved = await send(`/admin/keys/${hash}/plan`, {
      method: "POST",
      headers: ADMIN,
      json: { plan: "business" },
    });
    expect(moved.body.status).toBe("expired");
    const { expiresAt: _expiresAt, ...forever } = policyOf(record);
    await testServices().limiter.applyPolicy(hash, { ...forever, version: record.version + 99 });
    vi.setSystemTime(Date.now() + CACHE_EXPIRED_MS);
    expect((await send("/v1/pets?limit=1", { key })).status).toBe(401);
  });

  it("lives at least a minute and at most a year of 365 days", async () => {
    for (const [seconds, status] of [
      [59, 400],
      [60, 201],
      [365 * 86_400, 201],
      [365 * 86_400 + 1, 400],
      [90.5, 400],
    ] as const) {
      const made = await send("/admin/keys", {
        method: "POST",
        headers: ADMIN,
        json: { expiresInSeconds: seconds },
      });
      expect(made.status, `${seconds} s`).toBe(status);
    }
  });
});

describe("a share of its budget already granted", MANY_REQUESTS, () => {
  it("never outlives the key: it ends at the key's instant, and the object refuses from then", async () => {
    setClock("2030-06-15T10:00:00Z");
    const { hash, record } = await seedKey({ plan: "business", expiresInSeconds: 60 });
    const policy = policyOf(record);
    at("2030-06-15T10:00:59.700Z");
    const holder = isolate();
    const { grant, size } = await holdShare(holder, hash, policy, 3);
    expect(grant.lifeMs).toBeLessThanOrEqual(300);
    const calls = holder.calls.length;
    at("2030-06-15T10:00:59.999Z");
    expect((await holder.client.hitKey(hash, policy)).outcome).toBe("allowed");
    expect(holder.calls).toHaveLength(calls);
    // Share left over (size - 1 of it), yet from the instant on the key is dead.
    expect(size).toBeGreaterThan(1);
    at("2030-06-15T10:01:00Z");
    expect((await holder.client.hitKey(hash, policy)).outcome).toBe("revoked");
  });

  it("over HTTP: the isolate admitting from a share answers 401 from the instant on", async () => {
    setClock("2030-06-15T10:00:00Z");
    const { key } = await seedKey({ plan: "business", expiresInSeconds: 60 });
    at("2030-06-15T10:00:59.500Z");
    expect(tally(await sendInTurn(20, "/v1/pets?limit=1", { key }))).toEqual({ 200: 20 });
    at("2030-06-15T10:01:00Z");
    expect(tally(await sendInTurn(3, "/v1/pets?limit=1", { key }))).toEqual({ 401: 3 });
  });
});

describe("a roll", () => {
  async function rolled(expiresInSeconds: number) {
    setClock("2030-06-15T10:00:00Z");
    const old = await seedKey({
      expiresInSeconds,
      scopes: ["pets:read"],
      allowedRanges: ["203.0.113.0/24"],
    });
    const roll = await rollKey(testServices(), old.row.accountId, old.hash);
    if (!roll.ok) throw new Error(`the roll was refused: ${roll.reason}`);
    return { old, roll };
  }

  it("makes a successor with the same scopes, ranges and expiry instant", async () => {
    const { old, roll } = await rolled(3_600);
    expect(roll.successor.expiresAt).toEqual(old.row.expiresAt);
    expect(roll.successor.scopes).toEqual(["pets:read"]);
    expect(roll.successor.allowedRanges).toEqual(["203.0.113.0/24"]);
  });

  it("leaves the old key working until its expiry when that comes before the grace's end", async () => {
    const { old, roll } = await rolled(3_600);
    expect(roll.worksUntil).toEqual(old.row.expiresAt);
    const from = { "CF-Connecting-IP": "203.0.113.9" };
    at("2030-06-15T10:59:59Z");
    expect((await send("/v1/pets?limit=1", { key: old.key, headers: from })).status).toBe(200);
    at("2030-06-15T11:00:00Z");
    for (const key of [old.key, roll.key]) {
      expect((await send("/v1/pets?limit=1", { key, headers: from })).status).toBe(401);
    }
  });

  it("leaves the old key working until the grace's end when that comes first", async () => {
    const { roll } = await rolled(30 * 86_400);
    expect(roll.worksUntil.getTime()).toBe(Date.parse("2030-06-15T10:00:00Z") + ROLL_GRACE_MS);
  });
});
