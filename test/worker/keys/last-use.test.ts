import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { keyRecordName } from "../../../src/keys/key-format.ts";
import { policyOf } from "../../../src/keys/key-projection.ts";
import { seedKey } from "../support/keys.ts";
import { holdShare, isolate, setClock } from "../support/limiters.ts";
import { api, MANY_REQUESTS, send, sendInTurn } from "../support/request.ts";

const ADMIN = { Authorization: "Bearer test-admin-token-of-at-least-32-characters" };
const at = (iso: string) => vi.setSystemTime(new Date(iso));

afterEach(() => vi.useRealTimers());

/** The account's keys as the operator lists them: last four and last use, newest first. */
async function lastUses(account: string, bindings?: Partial<Env>) {
  const response = await api(`/admin/keys?account=${encodeURIComponent(account)}`, {
    headers: ADMIN,
    ...(bindings && { bindings }),
  });
  const body = (await response.json()) as { keys: { hash: string; lastUsedAt: string | null }[] };
  expect(response.status).toBe(200);
  return Object.fromEntries(body.keys.map((key) => [key.hash, key.lastUsedAt]));
}

describe("a key's last use", () => {
  it("is the minute its object last admitted a request for it, and none before the first", async () => {
    setClock("2030-06-15T10:00:05Z");
    const { key, hash, row } = await seedKey({ scopes: ["pets:read"] });
    const account = row.account.email;
    expect(await lastUses(account)).toEqual({ [hash]: null });
    at("2030-06-15T10:03:27.400Z");
    expect((await send("/v1/pets?limit=1", { key })).status).toBe(200);
    expect(await lastUses(account)).toEqual({ [hash]: "2030-06-15T10:03:00.000Z" });
    at("2030-06-15T10:07:59.999Z");
    // Refused for its scope, yet admitted by the limiter: a use like any other.
    expect((await send("/v1/pets/1", { method: "DELETE", key })).body.code).toBe(
      "insufficient_scope",
    );
    expect(await lastUses(account)).toEqual({ [hash]: "2030-06-15T10:07:00.000Z" });
  });

  it("leaves out what its own budget never counted: requests from outside its ranges", async () => {
    setClock("2030-06-15T10:00:05Z");
    const { key, hash, row } = await seedKey({ allowedRanges: ["10.0.0.0/8"] });
    const from = (ip: string) => ({ key, headers: { "CF-Connecting-IP": ip } });
    expect((await send("/v1/pets?limit=1", from("10.0.0.7"))).status).toBe(200);
    at("2030-06-15T10:05:00Z");
    expect((await send("/v1/pets?limit=1", from("192.0.2.7"))).status).toBe(403);
    expect(await lastUses(row.account.email)).toEqual({ [hash]: "2030-06-15T10:00:00.000Z" });
  });

  it("under a share, is the minute the object granted it", MANY_REQUESTS, async () => {
    setClock("2030-06-15T10:00:59.100Z");
    const { hash, record, row } = await seedKey();
    const holder = isolate();
    await holdShare(holder, hash, policyOf(record), 3);
    at("2030-06-15T10:00:59.900Z");
    expect((await holder.client.hitKey(hash, policyOf(record))).outcome).toBe("allowed");
    at("2030-06-15T10:02:00Z");
    expect(await lastUses(row.account.email)).toEqual({ [hash]: "2030-06-15T10:00:00.000Z" });
  });

  it("costs no write of KV or D1 per request", MANY_REQUESTS, async () => {
    const { key, hash } = await seedKey();
    const stored = async () => ({
      row: await env.DB.prepare("SELECT * FROM api_keys WHERE hash = ?").bind(hash).first(),
      record: await env.API_KEYS.get(keyRecordName(hash)),
    });
    const before = await stored();
    await sendInTurn(5, "/v1/pets?limit=1", { key });
    expect(await stored()).toEqual(before);
  });

  it("costs the page listing keys one call per key", async () => {
    const { row } = await seedKey({ plan: "account" });
    const account = row.account.email;
    await seedKey({ plan: "account", account });
    await seedKey({ plan: "account", account });
    let calls = 0;
    const counting = {
      idFromName: (name: string) => env.RATE_LIMITER.idFromName(name),
      get: (id: DurableObjectId) => {
        calls += 1;
        return env.RATE_LIMITER.get(id);
      },
    } as unknown as Env["RATE_LIMITER"];
    expect(Object.keys(await lastUses(account, { RATE_LIMITER: counting }))).toHaveLength(3);
    expect(calls).toBe(3);
  });
});
