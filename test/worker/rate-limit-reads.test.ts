import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { rateLimitClient } from "../../src/rate-limit/rate-limit-client.ts";
import { expectError } from "./assertions.ts";
import { api, seedKey } from "./helpers.ts";

// Reads run their query while the limiter decides; these pin down that a
// refusal still wins and nothing of the discarded read reaches the client.
describe("a read refused while its query ran", () => {
  it("answers 429 with none of the read's headers", async () => {
    const writer = await seedKey();
    for (const name of ["A", "B", "C"]) {
      const created = await api("/v1/pets", {
        method: "POST",
        key: writer.key,
        json: { name, categoryId: 9 },
      });
      await created.json();
    }
    const { key } = await seedKey({ plan: "enterprise", limits: { perMinute: 1, perDay: 100 } });
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
    const created = await api("/v1/pets", {
      method: "POST",
      key,
      json: { name: "Rex", categoryId: 9 },
    });
    const { id } = (await created.json()) as { id: number };
    await rateLimitClient(env.RATE_LIMITER).applyPolicy(hash, {
      limits: { perMinute: 1000, perDay: 100000 },
      revoked: true,
      version: record.version + 1,
    });
    const res = await api(`/v1/pets/${id}`, {
      key,
      headers: { "CF-Connecting-IP": "203.0.113.77" },
    });
    await expectError(res, 401, "unauthorized");
  });
});
