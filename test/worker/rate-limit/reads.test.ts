import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { rateLimitClient } from "../../../src/rate-limit/rate-limit-client.ts";
import { STORAGE_TIMEOUT_MS } from "../../../src/storage/storage-guard.ts";
import { expectError } from "../support/assertions.ts";
import { hangingD1 } from "../support/faulty-bindings.ts";
import { seedKey } from "../support/keys.ts";
import { api, postJson } from "../support/request.ts";

// Reads run their query while the limiter decides; these pin down that a
// refusal still wins and nothing of the discarded read reaches the client.
describe("a read refused while its query ran", () => {
  it("answers 429 with none of the read's headers", async () => {
    const writer = await seedKey();
    for (const name of ["A", "B", "C"]) {
      const created = await postJson("/v1/pets", writer.key, { name, categoryId: 2 });
      await created.json();
    }
    const { key } = await seedKey({ plan: "enterprise", limits: { perMinute: 1, perDay: 1 } });
    const admitted = await api("/v1/pets?limit=1", { key });
    expect(admitted.status).toBe(200);
    expect(admitted.headers.get("Link")).toMatch(/rel="next"/);
    await admitted.json();

    const refused = await api("/v1/pets?limit=1", { key });
    expect(refused.headers.get("Link")).toBeNull();
    expect(refused.headers.get("X-RateLimit-Remaining")).toBe("0");
    const body = await expectError(refused, 429, "rate_limited");
    expect(JSON.stringify(body)).not.toContain('"name"');
  });

  it("answers 401 for a key its Durable Object knows is revoked, even on a read that found an animal", async () => {
    const { key, hash, record } = await seedKey();
    const created = await postJson("/v1/pets", key, { name: "Rex", categoryId: 2 });
    const { id } = (await created.json()) as { id: number };
    await rateLimitClient(env.RATE_LIMITER).applyPolicy(hash, {
      limits: { perMinute: 1000, perDay: 100000 },
      revoked: true,
      scopes: record.scopes,
      version: record.version + 1,
    });
    const res = await api(`/v1/pets/${id}`, {
      key,
      headers: { "CF-Connecting-IP": "203.0.113.78" },
    });
    await expectError(res, 401, "unauthorized");
  });

  it("waits for the limiter before reading once a key has been refused", async () => {
    const { key } = await seedKey({ plan: "enterprise", limits: { perMinute: 1, perDay: 1 } });
    await (await api("/v1/pets", { key })).json();
    await expectError(await api("/v1/pets", { key }), 429, "rate_limited");
    // A D1 that never answers would hold a read-ahead for the full storage timeout.
    const started = Date.now();
    const refused = await api("/v1/pets", { key, bindings: { DB: hangingD1() } });
    expect(Date.now() - started).toBeLessThan(STORAGE_TIMEOUT_MS / 2);
    await expectError(refused, 429, "rate_limited");
  });

  it("answers a revoked key 401 even when its IP's keyless budget is spent", async () => {
    const ip = "198.51.100.61";
    for (let sent = 0; sent < 61; sent += 1) {
      await (await api("/v1/pets", { headers: { "CF-Connecting-IP": ip } })).json();
    }
    const { key, hash, record } = await seedKey();
    await rateLimitClient(env.RATE_LIMITER).applyPolicy(hash, {
      limits: { perMinute: 1000, perDay: 100000 },
      revoked: true,
      scopes: record.scopes,
      version: record.version + 1,
    });
    const res = await api("/v1/pets", { key, headers: { "CF-Connecting-IP": ip } });
    await expectError(res, 401, "unauthorized");
  });
});
