import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { keyRecordName } from "../../src/keys/key-format.ts";
import type { KeyRecord } from "../../src/keys/key-record.ts";
import { api, jsonOf, seedKey } from "./helpers.ts";

const ADMIN_TOKEN = "test-admin-token";

interface PolicyBody {
  revoked: boolean;
  plan: KeyRecord["plan"];
  limits?: KeyRecord["limits"];
  version: number;
}

function postPolicy(hash: string, body: unknown, token: string | null = ADMIN_TOKEN) {
  return api(`/admin/keys/${hash}/policy`, {
    method: "POST",
    json: body,
    headers: token === null ? {} : { Authorization: `Bearer ${token}` },
  });
}

/** What the operator command does first: write the new record straight to KV, bypassing this isolate's cache. */
async function writeRecordLikeTheCli(hash: string, record: KeyRecord): Promise<void> {
  await env.API_KEYS.put(keyRecordName(hash), JSON.stringify(record));
}

function policyOf(record: KeyRecord): PolicyBody {
  return {
    revoked: record.revoked,
    plan: record.plan,
    limits: record.limits,
    version: record.version,
  };
}

describe("POST /admin/keys/{hash}/policy", () => {
  describe("happy path", () => {
    it("revokes a key whose record this isolate still caches as live: the next request gets 401", async () => {
      const { key, hash, record } = await seedKey({ plan: "free" });
      const first = await api("/v1/pets", { key });
      await first.body?.cancel();
      expect(first.status).toBe(200);

      const revoked = { ...record, revoked: true, version: record.version + 1 };
      await writeRecordLikeTheCli(hash, revoked);
      // The isolate's 30 s key cache still holds the live record, so KV alone changes nothing yet.
      const cached = await api("/v1/pets", { key });
      await cached.body?.cancel();
      expect(cached.status).toBe(200);

      const applied = await postPolicy(hash, policyOf(revoked));
      expect(applied.status).toBe(204);
      expect(await applied.text()).toBe("");

      const next = await api("/v1/pets", { key });
      expect(next.status).toBe(401);
      expect(next.headers.get("WWW-Authenticate")).toBe(
        'Bearer realm="petstore", error="invalid_token"',
      );
      expect(await jsonOf(next)).toMatchObject({ code: "unauthorized", status: 401 });
    });

    it("applies a plan change to the next request's X-RateLimit-Limit", async () => {
      const { key, hash, record } = await seedKey({ plan: "free" });
      const before = await api("/v1/pets", { key });
      await before.body?.cancel();
      expect(before.headers.get("X-RateLimit-Limit")).toBe("60");

      const pro = { ...record, plan: "pro" as const, version: record.version + 1 };
      await writeRecordLikeTheCli(hash, pro);
      expect((await postPolicy(hash, policyOf(pro))).status).toBe(204);
      const afterPro = await api("/v1/pets", { key });
      await afterPro.body?.cancel();
      expect(afterPro.status).toBe(200);
      expect(afterPro.headers.get("X-RateLimit-Limit")).toBe("300");

      const enterprise = {
        ...record,
        plan: "enterprise" as const,
        limits: { perMinute: 7, perDay: 500 },
        version: record.version + 2,
      };
      expect((await postPolicy(hash, policyOf(enterprise))).status).toBe(204);
      const afterEnterprise = await api("/v1/pets", { key });
      await afterEnterprise.body?.cancel();
      expect(afterEnterprise.headers.get("X-RateLimit-Limit")).toBe("7");
    });

    it("ignores a policy older than the one the key's Durable Object already holds", async () => {
      const { key, hash, record } = await seedKey({ plan: "free" });
      const pro = { ...record, plan: "pro" as const, version: record.version + 5 };
      expect((await postPolicy(hash, policyOf(pro))).status).toBe(204);
      const stale = { ...record, revoked: true, version: record.version + 1 };
      expect((await postPolicy(hash, policyOf(stale))).status).toBe(204);

      const next = await api("/v1/pets", { key });
      await next.body?.cancel();
      expect(next.status).toBe(200);
      expect(next.headers.get("X-RateLimit-Limit")).toBe("300");
    });
  });

  describe("bad input", () => {
    const hash = "a".repeat(64);
    const valid: PolicyBody = { revoked: true, plan: "free", version: 1 };

    it.each([
      ["an unknown plan", { ...valid, plan: "gold" }],
      ["an unknown field", { ...valid, extra: 1 }],
      ["enterprise without limits", { ...valid, plan: "enterprise" }],
      ["limits on a non-enterprise plan", { ...valid, limits: { perMinute: 1, perDay: 2 } }],
      ["a negative version", { ...valid, version: -1 }],
      ["a missing revoked flag", { plan: "free", version: 1 }],
    ])("rejects %s with 400 invalid_request", async (_name, body) => {
      const response = await postPolicy(hash, body);
      expect(response.status).toBe(400);
      expect(await jsonOf(response)).toMatchObject({ code: "invalid_request", status: 400 });
    });

    it("answers 404 for a path segment that is not a key hash", async () => {
      const response = await postPolicy("not-a-hash", valid);
      expect(response.status).toBe(404);
      expect(await jsonOf(response)).toMatchObject({ code: "not_found" });
    });

    it("answers 415 for a body that is not JSON", async () => {
      const response = await api(`/admin/keys/${hash}/policy`, {
        method: "POST",
        body: "revoked=true",
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "text/plain" },
      });
      expect(response.status).toBe(415);
      await response.body?.cancel();
    });

    it("answers 405 with Allow for other methods", async () => {
      const response = await api(`/admin/keys/${hash}/policy`, {
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get("Allow")).toBe("POST");
      await response.body?.cancel();
    });
  });

  describe("auth", () => {
    it.each([
      ["no Authorization header", null],
      ["a wrong token", "wrong-token"],
      ["the token with one character more", `${ADMIN_TOKEN}x`],
      ["an empty token", ""],
    ])("answers 401 to %s and changes nothing", async (_name, token) => {
      const { key, hash, record } = await seedKey({ plan: "free" });
      const response = await postPolicy(
        hash,
        { ...policyOf(record), revoked: true, version: record.version + 1 },
        token,
      );
      expect(response.status).toBe(401);
      expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
      expect(await jsonOf(response)).toMatchObject({ code: "unauthorized", status: 401 });

      const next = await api("/v1/pets", { key });
      await next.body?.cancel();
      expect(next.status).toBe(200);
    });

    it("does not accept an API key in place of the operator token", async () => {
      const { key, hash, record } = await seedKey({ plan: "free" });
      const response = await postPolicy(hash, policyOf(record), key);
      expect(response.status).toBe(401);
      await response.body?.cancel();
    });

    it("does not exist (404) where no ADMIN_TOKEN is configured", async () => {
      const response = await createApp().request(
        `/admin/keys/${"a".repeat(64)}/policy`,
        {
          method: "POST",
          headers: { Authorization: "Bearer ", "Content-Type": "application/json" },
          body: JSON.stringify({ revoked: true, plan: "free", version: 1 }),
        },
        { ...env, ADMIN_TOKEN: "" },
      );
      expect(response.status).toBe(404);
      expect(await jsonOf(response)).toMatchObject({ code: "not_found" });
    });
  });
});
