import { createScheduledController, env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../../src/index.ts";
import { publishKeys } from "../../../src/keys/key-changes.ts";
import { generateApiKey, keyRecordName } from "../../../src/keys/key-format.ts";
import { policyOf } from "../../../src/keys/key-projection.ts";
import { KeyRecordSchema } from "../../../src/keys/key-record.ts";
import { WORKING_KEYS_BY_PLAN } from "../../../src/keys/keys.queries.ts";
import { rateLimitClient } from "../../../src/rate-limit/rate-limit-client.ts";
import { freshIp } from "../support/assertions.ts";
import {
  DashboardBrowser,
  keyHashOnPage,
  keysIn,
  uniqueEmail,
} from "../support/dashboard-browser.ts";
import { failingKV, failingLimiter } from "../support/faulty-bindings.ts";
import { seedKey, testServices } from "../support/keys.ts";
import { setClock } from "../support/limiters.ts";
import { captureLogs, storageFailure } from "../support/logs.ts";
import { api, MANY_REQUESTS, sendInTurn, tally } from "../support/request.ts";

const ADMIN = { Authorization: "Bearer test-admin-token-of-at-least-32-characters" };
/** Longer than the isolate's key cache keeps a record. */
const CACHE_EXPIRED_MS = 31_000;

afterEach(() => vi.useRealTimers());

async function probe(key: string, ip = freshIp()) {
  const response = await api("/v1/pets?limit=1", { key, headers: { "CF-Connecting-IP": ip } });
  await response.text();
  return response;
}

async function statusWith(key: string): Promise<number> {
  return (await probe(key)).status;
}

async function adminPost(path: string, json?: unknown): Promise<Response> {
  const response = await api(`/admin${path}`, {
    method: "POST",
    headers: ADMIN,
    ...(json === undefined ? {} : { json }),
  });
  await response.text();
  return response;
}

/** An account with a password and one key, made through the dashboard as its owner would. */
async function ownerWithKey() {
  const browser = new DashboardBrowser();
  const email = uniqueEmail("owner");
  await browser.newAccount(email);
  const { key, page } = await browser.createKey();
  const hash = keyHashOnPage(page.html, key.slice(-4));
  return { browser, email, key, hash };
}

type Owner = Awaited<ReturnType<typeof ownerWithKey>>;

const revokers: Record<string, (owner: Owner) => Promise<void>> = {
  dashboard: async ({ browser, hash }) => {
    expect((await browser.post(`/dashboard/keys/${hash}/revoke`)).status).toBe(303);
  },
  "admin endpoint (the operator command's path)": async ({ hash }) => {
    expect((await adminPost(`/keys/${hash}/revoke`)).status).toBe(200);
  },
};

/** What could try to bring a revoked key back: each must leave it dead. */
const laterChanges: Record<
  string,
  (owner: Owner, live: { record: unknown; version: number }) => Promise<void>
> = {
  roll: async ({ browser, hash }) => {
    const rolled = await browser.post(`/dashboard/keys/${hash}/roll`);
    expect(rolled.status).toBe(409);
    expect(keysIn(rolled.html)).toEqual([]);
  },
  "plan change": async ({ hash }) => {
    expect((await adminPost(`/keys/${hash}/plan`, { plan: "business" })).status).toBe(200);
  },
  "delayed stale write": async ({ hash }, live) => {
    // A publish of the key's earlier row that lands late, in KV and at the Durable Object.
    const record = KeyRecordSchema.parse(live.record);
    await env.API_KEYS.put(keyRecordName(hash), JSON.stringify(record));
    const newer = { ...policyOf(record), version: live.version + 1_000 };
    await rateLimitClient(env.RATE_LIMITER).applyPolicy(hash, newer);
  },
};

function orders<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, index) =>
    orders([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}

describe("revocation is terminal", () => {
  const cases = Object.keys(revokers).flatMap((revoker) =>
    orders(Object.keys(laterChanges)).flatMap((order) =>
      ["while the isolate caches the live record", "after the caches expired"].map(
        (cache) => [revoker, order.join(", then "), cache] as const,
      ),
    ),
  );

  it.each(cases)("revoked by the %s, followed by %s, %s: 401", async (revoker, order, cache) => {
    setClock("2030-06-15T10:00:05Z");
    const owner = await ownerWithKey();
    expect(await statusWith(owner.key)).toBe(200);
    const live = {
      record: await env.API_KEYS.get(keyRecordName(owner.hash), "json"),
      version: KeyRecordSchema.parse(await env.API_KEYS.get(keyRecordName(owner.hash), "json"))
        .version,
    };
    await revokers[revoker]?.(owner);
    expect(await statusWith(owner.key)).toBe(401);
    for (const change of order.split(", then ")) {
      await laterChanges[change]?.(owner, live);
      expect(await statusWith(owner.key), `after ${change}`).toBe(401);
    }
    if (cache === "after the caches expired") {
      vi.setSystemTime(Date.now() + CACHE_EXPIRED_MS);
    }
    expect(await statusWith(owner.key)).toBe(401);
  });

  it("a Durable Object refuses a newer policy that would un-revoke its key", async () => {
    const { key, hash, record } = await seedKey({ revoked: true });
    const limiter = rateLimitClient(env.RATE_LIMITER);
    await limiter.applyPolicy(hash, {
      ...policyOf(record),
      revoked: false,
      version: record.version + 99,
    });
    await env.API_KEYS.put(keyRecordName(hash), JSON.stringify({ ...record, revoked: false }));
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + CACHE_EXPIRED_MS);
    expect(await statusWith(key)).toBe(401);
  });
});

describe("dead keys get 401, never 429", MANY_REQUESTS, () => {
  it("a revoked key whose caller's IP budget is spent: 401 with the budget's headers, no Retry-After", async () => {
    setClock("2030-06-15T10:00:05Z");
    const { key, hash } = await seedKey();
    const ip = freshIp();
    expect((await probe(key, ip)).status).toBe(200);
    const spent = await sendInTurn(61, "/v1/pets", { headers: { "CF-Connecting-IP": ip } });
    expect(tally(spent)).toEqual({ 401: 60, rate_limited: 1 });

    expect((await adminPost(`/keys/${hash}/revoke`)).status).toBe(200);
    for (const later of [0, CACHE_EXPIRED_MS]) {
      vi.setSystemTime(Date.now() + later);
      const response = await probe(key, ip);
      expect(response.status).toBe(401);
      expect(response.headers.get("Retry-After")).toBeNull();
      expect(response.headers.get("WWW-Authenticate")).toBe(
        'Bearer realm="petstore", error="invalid_token"',
      );
      expect(response.headers.get("X-RateLimit-Remaining")).toBe("0");
      expect(response.headers.get("RateLimit-Policy")).toBe('"minute";q=60;w=60');
    }
  });

  it("a key past its grace period, with the IP budget spent: 401, no Retry-After", async () => {
    setClock("2030-06-15T10:00:05Z");
    const { key } = await seedKey({ graceEndsAt: Date.now() - 1_000 });
    const ip = freshIp();
    await sendInTurn(60, "/v1/pets", { headers: { "CF-Connecting-IP": ip } });
    const response = await probe(key, ip);
    expect(response.status).toBe(401);
    expect(response.headers.get("Retry-After")).toBeNull();
  });

  it("unknown keys are guesses: 429 once the IP budget is spent", async () => {
    setClock("2030-06-15T10:00:05Z");
    const ip = freshIp();
    const replies = await sendInTurn(61, "/v1/pets", {
      key: generateApiKey("ps_test_"),
      headers: { "CF-Connecting-IP": ip },
    });
    expect(tally(replies)).toEqual({ 401: 60, rate_limited: 1 });
    expect(replies.at(-1)?.headers.get("Retry-After")).not.toBeNull();
  });
});

describe("plans", () => {
  it("a key's own plan survives a roll, on the old key and its successor", async () => {
    const owner = await ownerWithKey();
    expect((await adminPost(`/keys/${owner.hash}/plan`, { plan: "business" })).status).toBe(200);
    const rolled = await owner.browser.post(`/dashboard/keys/${owner.hash}/roll`);
    expect(rolled.status).toBe(303);
    const [successor = ""] = keysIn((await owner.browser.get("/dashboard/account")).html);
    expect((await probe(owner.key)).headers.get("X-RateLimit-Limit")).toBe("1000");
    expect((await probe(successor)).headers.get("X-RateLimit-Limit")).toBe("1000");
  });

  it("an account's plan reaches every key on its next request, and keys made later", async () => {
    const owner = await ownerWithKey();
    const second = (await owner.browser.createKey()).key;
    for (const key of [owner.key, second]) {
      expect((await probe(key)).headers.get("X-RateLimit-Limit")).toBe("60");
    }
    const moved = await adminPost(`/accounts/${encodeURIComponent(owner.email)}/plan`, {
      plan: "pro",
    });
    expect(moved.status).toBe(200);
    for (const key of [owner.key, second]) {
      expect((await probe(key)).headers.get("X-RateLimit-Limit")).toBe("300");
    }
    const later = (await owner.browser.createKey()).key;
    expect((await probe(later)).headers.get("X-RateLimit-Limit")).toBe("300");
  });
});

describe("the cap of working keys holds under concurrency", MANY_REQUESTS, () => {
  const cap = WORKING_KEYS_BY_PLAN.free;

  it(`40 concurrent creates on a Free account make exactly ${cap} working keys; a roll at the cap works`, async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const pages = await Promise.all(
      Array.from({ length: 40 }, () => browser.post("/dashboard/keys")),
    );
    const statuses = pages.map((page) => page.status).sort();
    expect(statuses.filter((status) => status === 303)).toHaveLength(cap);
    expect(statuses.filter((status) => status === 409)).toHaveLength(40 - cap);
    const refused = pages.find((page) => page.status === 409);
    expect(refused?.html).toContain("Revoke a key first");
    const account = await browser.get("/dashboard/account");
    expect(account.html.match(/data-key-last-four=/g)).toHaveLength(cap);

    // A roll replaces a working key, so the cap never refuses it.
    const [firstKey] = keysIn(account.html);
    const hash = keyHashOnPage(account.html, (firstKey ?? "").slice(-4));
    const roll = await browser.post(`/dashboard/keys/${hash}/roll`);
    expect(roll.status).toBe(303);
    expect((await browser.post("/dashboard/keys")).status).toBe(409);
  });

  it("5 concurrent rolls of one key make exactly one successor", async () => {
    const owner = await ownerWithKey();
    const rolls = await Promise.all(
      Array.from({ length: 5 }, () => owner.browser.post(`/dashboard/keys/${owner.hash}/roll`)),
    );
    expect(rolls.map((page) => page.status).sort()).toEqual([303, 409, 409, 409, 409]);
    const { results } = await env.DB.prepare(
      "SELECT count(*) AS keys FROM api_keys WHERE account_id = (SELECT account_id FROM api_keys WHERE hash = ?)",
    )
      .bind(owner.hash)
      .all<{ keys: number }>();
    expect(results[0]?.keys).toBe(2);
  });
});

describe("publishing is last-writer-safe", () => {
  it("a late publish of an older row still leaves KV with the newest row", async () => {
    const { hash, row } = await seedKey();
    expect((await adminPost(`/keys/${hash}/revoke`)).status).toBe(200);
    // The publish that read the row before the revocation lands last.
    await publishKeys(testServices(), [row]);
    const record = KeyRecordSchema.parse(await env.API_KEYS.get(keyRecordName(hash), "json"));
    expect(record.revoked).toBe(true);
    expect(record.version).toBeGreaterThan(row.version);
  });
});

describe("a key missing from KV", () => {
  it("works on its first request: D1 is asked before the key is called unknown", async () => {
    const made = await api("/admin/keys", { method: "POST", headers: ADMIN, json: {} });
    const { key, hash } = (await made.json()) as { key: string; hash: string };
    // As at a location KV has not reached yet.
    await env.API_KEYS.delete(keyRecordName(hash));
    expect(await statusWith(key)).toBe(200);
  });
});

describe("a change some store did not take", () => {
  const logs = captureLogs();

  it("answers 503, is finished by repeating it, and the scheduled job finishes it too", async () => {
    const { key, hash } = await seedKey();
    const failed = await api(`/admin/keys/${hash}/revoke`, {
      method: "POST",
      headers: ADMIN,
      bindings: { API_KEYS: failingKV() },
    });
    expect(failed.status).toBe(503);
    await failed.body?.cancel();
    expect(logs.lines).toContainEqual(storageFailure("KV"));
    // D1 holds the revocation and the Durable Object took it: the key is refused already.
    expect(await statusWith(key)).toBe(401);
    const lagging = await env.DB.prepare(
      "SELECT version, synced_version FROM api_keys WHERE hash = ?",
    )
      .bind(hash)
      .first<{ version: number; synced_version: number }>();
    expect(lagging && lagging.synced_version < lagging.version).toBe(true);
    expect(KeyRecordSchema.parse(await env.API_KEYS.get(keyRecordName(hash), "json")).revoked).toBe(
      false,
    );

    await worker.scheduled(createScheduledController(), env);
    expect(KeyRecordSchema.parse(await env.API_KEYS.get(keyRecordName(hash), "json")).revoked).toBe(
      true,
    );
    const synced = await env.DB.prepare(
      "SELECT version, synced_version FROM api_keys WHERE hash = ?",
    )
      .bind(hash)
      .first<{ version: number; synced_version: number }>();
    expect(synced?.synced_version).toBe(synced?.version);
  });

  it("a new key whose record KV did not take is still shown, works at once, and is published later", async () => {
    const made = await api("/admin/keys", {
      method: "POST",
      headers: ADMIN,
      json: { plan: "pro" },
      bindings: { API_KEYS: failingKV() },
    });
    expect(made.status).toBe(201);
    const { key, hash } = (await made.json()) as { key: string; hash: string };
    expect(await env.API_KEYS.get(keyRecordName(hash))).toBeNull();
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        level: "warn",
        message: "key publication deferred to the scheduled job",
      }),
    );
    expect((await probe(key)).headers.get("X-RateLimit-Limit")).toBe("300");

    await worker.scheduled(createScheduledController(), env);
    const record = KeyRecordSchema.parse(await env.API_KEYS.get(keyRecordName(hash), "json"));
    expect(record.limits.perMinute).toBe(300);
  });

  it("a plan change the Durable Object missed: 503, then repeating it completes it", async () => {
    const { key, hash } = await seedKey({ plan: "free" });
    const failed = await api(`/admin/keys/${hash}/plan`, {
      method: "POST",
      headers: { ...ADMIN, "Content-Type": "application/json" },
      body: '{"plan":"pro"}',
      bindings: { RATE_LIMITER: failingLimiter() },
    });
    expect(failed.status).toBe(503);
    await failed.body?.cancel();
    expect(logs.lines).toContainEqual(storageFailure("Durable Object"));
    expect((await adminPost(`/keys/${hash}/plan`, { plan: "pro" })).status).toBe(200);
    expect((await probe(key)).headers.get("X-RateLimit-Limit")).toBe("300");
  });
});
