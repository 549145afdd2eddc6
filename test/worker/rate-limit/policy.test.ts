import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setKeyLimits } from "../../../src/keys/key-changes.ts";
import { keyRecordName } from "../../../src/keys/key-format.ts";
import { planLimits } from "../../../src/rate-limit/plans.ts";
import { rateLimitClient } from "../../../src/rate-limit/rate-limit-client.ts";
import { seedKey, testServices } from "../support/keys.ts";
import { setClock, testPolicy } from "../support/limiters.ts";
import { header, MANY_REQUESTS, send, sendInTurn, tally } from "../support/request.ts";

const limiter = rateLimitClient(env.RATE_LIMITER);

beforeEach(() => setClock("2030-06-15T10:00:05Z"));
afterEach(() => vi.useRealTimers());

describe("plan changes", MANY_REQUESTS, () => {
  it("apply from the next request when the key's plan changes", async () => {
    const { key, hash } = await seedKey({ plan: "free" });
    expect(tally(await sendInTurn(61, "/v1/pets", { key }))).toEqual({ 200: 60, rate_limited: 1 });
    await setKeyLimits(testServices(), hash, { plan: "pro", perMinute: null, perDay: null });
    const upgraded = await send("/v1/pets", { key });
    expect(upgraded.status).toBe(200);
    expect(header(upgraded, "X-RateLimit-Limit")).toBe("300");
    expect(header(upgraded, "X-RateLimit-Remaining")).toBe("239");
    expect(header(upgraded, "RateLimit-Policy")).toBe('"minute";q=300;w=60, "day";q=10000;w=86400');
  });

  it("apply from the next request when only the Durable Object is told", async () => {
    const { key, hash, record } = await seedKey({ plan: "free" });
    expect(tally(await sendInTurn(61, "/v1/pets", { key }))).toEqual({ 200: 60, rate_limited: 1 });
    // The isolate still caches the Free record; the object keeps the newer policy.
    await limiter.applyPolicy(hash, testPolicy(planLimits.pro, record.version + 1));
    const upgraded = await send("/v1/pets", { key });
    expect(upgraded.status).toBe(200);
    expect(header(upgraded, "X-RateLimit-Limit")).toBe("300");
    expect(header(upgraded, "X-RateLimit-Remaining")).toBe("239");
  });

  it("take a downgrade made in this isolate at once, counting what was already spent", async () => {
    const { key, hash } = await seedKey({ plan: "business" });
    expect(tally(await sendInTurn(70, "/v1/pets", { key }))).toEqual({ 200: 70 });
    await setKeyLimits(testServices(), hash, { plan: "free", perMinute: null, perDay: null });
    const refused = await send("/v1/pets", { key });
    expect(refused.body.code).toBe("rate_limited");
    expect(header(refused, "X-RateLimit-Limit")).toBe("60");
  });

  it("take a downgrade told by another isolate once this isolate's share has ended", async () => {
    const { key, hash, record } = await seedKey({ plan: "business" });
    expect(tally(await sendInTurn(70, "/v1/pets", { key }))).toEqual({ 200: 70 });
    await limiter.applyPolicy(hash, testPolicy(planLimits.free, record.version + 1));
    // A share granted under Business before the change lives out its second at most.
    vi.setSystemTime(new Date("2030-06-15T10:00:06Z"));
    const refused = await send("/v1/pets", { key });
    expect(refused.body.code).toBe("rate_limited");
    expect(header(refused, "X-RateLimit-Limit")).toBe("60");
  });

  it("ignore a policy older than the one the object holds", async () => {
    const { key, hash, record } = await seedKey({ plan: "free" });
    await limiter.applyPolicy(hash, testPolicy(planLimits.pro, record.version + 2));
    await limiter.applyPolicy(hash, testPolicy(planLimits.business, record.version + 1));
    const reply = await send("/v1/pets", { key });
    expect(header(reply, "X-RateLimit-Limit")).toBe("300");
  });
});

describe("revocation", MANY_REQUESTS, () => {
  const revoke = (hash: string, version: number) =>
    limiter.applyPolicy(hash, testPolicy(planLimits.free, version + 1, true));

  it("refuses the very next request with 401 while the isolate still caches the live record", async () => {
    const { key, hash, record } = await seedKey({ plan: "free" });
    expect((await send("/v1/pets", { key })).status).toBe(200);
    await revoke(hash, record.version);
    const reply = await send("/v1/pets", {
      key,
      headers: { "CF-Connecting-IP": "198.51.100.201" },
    });
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ code: "unauthorized", status: 401 });
    expect(header(reply, "WWW-Authenticate")).toBe(
      'Bearer realm="petstore", error="invalid_token"',
    );
    // A revoked key no longer has a budget of its own: the caller's IP budget is described.
    expect(header(reply, "RateLimit-Policy")).toBe('"minute";q=60;w=60');
    expect(header(reply, "X-RateLimit-Remaining")).toBe("59");
  });

  it("answers 401, never 429, for a key that was rate limited", async () => {
    const { key, hash, record } = await seedKey({ plan: "free" });
    expect(tally(await sendInTurn(61, "/v1/pets", { key }))).toEqual({ 200: 60, rate_limited: 1 });
    await revoke(hash, record.version);
    expect((await send("/v1/pets", { key })).status).toBe(401);
  });

  it("answers 401, never 429, for a key that was banned", async () => {
    const { key, hash, record } = await seedKey({ plan: "free" });
    const replies = await sendInTurn(70, "/v1/pets", { key });
    expect(replies.at(-1)?.body.code).toBe("api_key_banned");
    await revoke(hash, record.version);
    expect((await send("/v1/pets", { key })).status).toBe(401);
  });

  it("is not undone by a stale record that still says the key is live", async () => {
    const { key, hash, record } = await seedKey({ plan: "free" });
    await revoke(hash, record.version);
    await env.API_KEYS.put(keyRecordName(hash), JSON.stringify(record));
    expect((await send("/v1/pets", { key })).status).toBe(401);
  });

  it("refuses a key whose KV record is revoked", async () => {
    const { key } = await seedKey({ plan: "free", revoked: true });
    expect((await send("/v1/pets", { key })).status).toBe(401);
  });
});
