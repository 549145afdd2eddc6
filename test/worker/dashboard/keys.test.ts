import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { setAccountPlan } from "../../../src/keys/key-changes.ts";
import { hashApiKey, keyRecordName } from "../../../src/keys/key-format.ts";
import { type KeyRecord, KeyRecordSchema } from "../../../src/keys/key-record.ts";
import { ROLL_GRACE_MS, WORKING_KEYS_BY_PLAN } from "../../../src/keys/keys.queries.ts";
import {
  DashboardBrowser,
  keyHashOnPage,
  keysIn,
  uniqueEmail,
} from "../support/dashboard-browser.ts";
import { testServices } from "../support/keys.ts";
import { api } from "../support/request.ts";

afterEach(() => {
  vi.useRealTimers();
});

/** GET /v1/pets with the key; the status, with the body read. */
async function statusWith(key: string): Promise<number> {
  const response = await api("/v1/pets", { key });
  await response.text();
  return response.status;
}

async function kvRecord(hash: string) {
  return KeyRecordSchema.parse(await env.API_KEYS.get(keyRecordName(hash), "json"));
}

/** What another location's KV may still hold: a record older than the newest. */
async function putStaleRecord(hash: string, record: KeyRecord): Promise<void> {
  await env.API_KEYS.put(keyRecordName(hash), JSON.stringify(record));
}

/** Every name and value in KV and every row of the account tables, as one text. */
async function everythingStored(): Promise<string> {
  const parts: string[] = [];
  const listed = await env.API_KEYS.list();
  for (const { name } of listed.keys) parts.push(name, (await env.API_KEYS.get(name)) ?? "");
  for (const table of ["accounts", "api_keys"]) {
    const { results } = await env.DB.prepare(`SELECT * FROM ${table}`).all();
    parts.push(JSON.stringify(results));
  }
  return parts.join("\n");
}

describe("creating a key", () => {
  it("shows the full key once, with a copy hint, then only its last four", async () => {
    const browser = new DashboardBrowser();
    const email = uniqueEmail();
    await browser.newAccount(email);
    const { key, page } = await browser.createKey();
    expect(key).toMatch(/^ps_test_[0-9A-Za-z]{32}$/);
    expect(page.html.split(key)).toHaveLength(2);
    expect(page.html).toContain("It will not be shown again");
    expect(page.html).toMatch(/copy \(Ctrl\+C/);
    expect(page.response.headers.get("Cache-Control")).toBe("no-store");

    const later = await browser.get("/dashboard/account");
    expect(keysIn(later.html)).toEqual([]);
    expect(later.html).toContain(`…${key.slice(-4)}`);
    expect(later.html).toContain("Active");

    expect(await statusWith(key)).toBe(200);
  });

  it("stores only the hash: the key is nowhere in KV or D1", async () => {
    const browser = new DashboardBrowser();
    const email = uniqueEmail();
    await browser.newAccount(email);
    const { key } = await browser.createKey();
    const hash = await hashApiKey(key);

    const record = await kvRecord(hash);
    expect(record).toMatchObject({
      limits: { perMinute: 60, perDay: 1_000 },
      revoked: false,
      lastFour: key.slice(-4),
    });
    const row = await env.DB.prepare("SELECT hash, last_four FROM api_keys WHERE hash = ?")
      .bind(hash)
      .first();
    expect(row).toEqual({ hash, last_four: key.slice(-4) });

    const stored = await everythingStored();
    expect(stored).toContain(hash);
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(key.slice(8));
  });

  it("gives new keys the account's plan", async () => {
    const browser = new DashboardBrowser();
    const email = uniqueEmail();
    await browser.newAccount(email);
    await setAccountPlan(testServices(), email, { plan: "pro", perMinute: null, perDay: null });
    const { key, page } = await browser.createKey();
    expect(page.html).toMatch(/data-testid="plan">Pro</);
    expect((await kvRecord(await hashApiKey(key))).limits).toEqual({
      perMinute: 300,
      perDay: 10_000,
    });
  });

  it("shows usage summed over the account's keys", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const first = (await browser.createKey()).key;
    const second = (await browser.createKey()).key;
    for (const key of [first, first, second]) expect(await statusWith(key)).toBe(200);
    const page = await browser.get("/dashboard/account");
    expect(page.html).toMatch(/data-testid="usage-minute">3</);
    expect(page.html).toMatch(/data-testid="usage-day">3</);
    expect(page.html).toContain("2 of 1,000");
    expect(page.html).toContain("1 of 1,000");
  });

  it(`refuses more than a Free account's ${WORKING_KEYS_BY_PLAN.free} working keys`, async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    for (let i = 0; i < WORKING_KEYS_BY_PLAN.free; i += 1) await browser.createKey();
    const page = await browser.post("/dashboard/keys");
    expect(page.status).toBe(409);
    expect(page.html).toContain("Revoke a key first, then make another.");
    expect(keysIn(page.html)).toEqual([]);
  });

  it("needs a session", async () => {
    const browser = new DashboardBrowser();
    await browser.get("/dashboard/sign-in");
    const page = await browser.post("/dashboard/keys");
    expect(page.status).toBe(303);
    expect(page.location).toBe("/dashboard/sign-in");
  });
});

describe("revoking a key", () => {
  it("refuses the key from the next request on", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const { key, page } = await browser.createKey();
    expect(await statusWith(key)).toBe(200);

    const revoked = await browser.post(
      `/dashboard/keys/${keyHashOnPage(page.html, key.slice(-4))}/revoke`,
    );
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe("/dashboard/account");
    expect(await statusWith(key)).toBe(401);

    const after = await browser.get(revoked.location ?? "");
    expect(after.html).toContain(`The key ending …${key.slice(-4)} is revoked`);
    expect(after.html).toMatch(/Revoked \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(after.html).not.toContain(`/revoke"`);
  });

  it("holds even where KV still has the old record (the key's Durable Object knows)", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const { key, page } = await browser.createKey();
    const hash = await hashApiKey(key);
    const before = await kvRecord(hash);
    expect(await statusWith(key)).toBe(200);
    await browser.post(`/dashboard/keys/${keyHashOnPage(page.html, key.slice(-4))}/revoke`);
    const after = await kvRecord(hash);
    expect(after.revoked).toBe(true);
    expect(after.version).toBeGreaterThan(before.version);

    // Another location whose KV has not caught up yet.
    await putStaleRecord(hash, before);
    expect(await statusWith(key)).toBe(401);
  });

  it("cannot touch another account's key", async () => {
    const owner = new DashboardBrowser();
    await owner.newAccount();
    const { key, page } = await owner.createKey();
    const hash = keyHashOnPage(page.html, key.slice(-4));

    const intruder = new DashboardBrowser();
    await intruder.newAccount();
    for (const action of ["revoke", "roll"]) {
      const attempt = await intruder.post(`/dashboard/keys/${hash}/${action}`);
      expect(attempt.status).toBe(404);
      expect(attempt.html).toContain("Your account has no such key.");
      expect(keysIn(attempt.html)).toEqual([]);
    }
    const record = await kvRecord(hash);
    expect(record.revoked).toBe(false);
    expect(record.expiresAt).toBeUndefined();
    expect(await statusWith(key)).toBe(200);
  });

  it("answers a malformed key address with the key-not-found page", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const page = await browser.post("/dashboard/keys/not-a-hash/revoke");
    expect(page.status).toBe(404);
    expect(page.html).toContain("Your account has no such key.");
  });
});

describe("rolling a key", () => {
  it("shows a new key once; the old one works for 24 hours, then is refused", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.now();
    vi.setSystemTime(start);
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const { key: oldKey, page } = await browser.createKey();

    const rolled = await browser.post(
      `/dashboard/keys/${keyHashOnPage(page.html, oldKey.slice(-4))}/roll`,
    );
    expect(rolled.status).toBe(303);
    expect(rolled.location).toBe("/dashboard/account");
    const shown = await browser.get("/dashboard/account");
    const [newKey] = keysIn(shown.html);
    expect(newKey).toBeDefined();
    expect(newKey).not.toBe(oldKey);
    const until = new Date(start + ROLL_GRACE_MS).toISOString().slice(0, 16).replace("T", " ");
    expect(shown.html).toContain(
      `The old key ending …${oldKey.slice(-4)} keeps working until ${until} UTC`,
    );
    expect((await browser.get("/dashboard/account")).html).toContain(
      `Rolled: works until ${until} UTC, then refused`,
    );

    expect(await statusWith(oldKey)).toBe(200);
    expect(await statusWith(newKey ?? "")).toBe(200);

    vi.setSystemTime(start + ROLL_GRACE_MS - 1000);
    expect(await statusWith(oldKey)).toBe(200);

    vi.setSystemTime(start + ROLL_GRACE_MS + 1000);
    expect(await statusWith(oldKey)).toBe(401);
    expect(await statusWith(newKey ?? "")).toBe(200);
  });

  it("will not roll a key twice or roll a revoked key", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const { key, page } = await browser.createKey();
    const hash = keyHashOnPage(page.html, key.slice(-4));
    expect((await browser.post(`/dashboard/keys/${hash}/roll`)).status).toBe(303);
    const again = await browser.post(`/dashboard/keys/${hash}/roll`);
    expect(again.status).toBe(409);
    expect(again.html).toContain("cannot be rolled");
    expect(keysIn(again.html)).toEqual([]);

    // A key in its grace period can still be revoked at once.
    expect((await browser.post(`/dashboard/keys/${hash}/revoke`)).status).toBe(303);
    expect(await statusWith(key)).toBe(401);
    expect((await browser.post(`/dashboard/keys/${hash}/roll`)).status).toBe(409);
  });
});
