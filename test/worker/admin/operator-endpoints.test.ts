import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { createApp } from "../../../src/app.ts";
import { hashApiKey } from "../../../src/keys/key-format.ts";
import { DashboardBrowser, keysIn, uniqueEmail } from "../support/dashboard-browser.ts";
import { seedKey } from "../support/keys.ts";
import { api, jsonOf } from "../support/request.ts";

const ADMIN_TOKEN = "test-admin-token-of-at-least-32-characters";

interface KeySummary {
  hash: string;
  lastFour: string;
  account: string;
  status: string;
  limitsFrom: "account" | "key";
  plan: string;
  perMinute: number;
  perDay: number;
}

function admin(
  path: string,
  init: { method?: string; json?: unknown; token?: string | null } = {},
) {
  const { token = ADMIN_TOKEN, ...rest } = init;
  return api(`/admin${path}`, {
    method: rest.method ?? (rest.json === undefined ? "GET" : "POST"),
    ...(rest.json === undefined ? {} : { json: rest.json }),
    headers: token === null ? {} : { Authorization: `Bearer ${token}` },
  });
}

async function adminJson<T>(
  path: string,
  init: { method?: string; json?: unknown } = {},
  status = 200,
): Promise<T> {
  const response = await admin(path, init);
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/** GET /v1/pets with the key: its status and the limit it was counted against. */
async function probe(key: string): Promise<{ status: number; limit: string | null }> {
  const response = await api("/v1/pets?limit=1", { key });
  await response.text();
  return { status: response.status, limit: response.headers.get("X-RateLimit-Limit") };
}

const createKey = (json: Record<string, unknown>) =>
  adminJson<KeySummary & { key: string; accountCreated: boolean }>("/keys", { json }, 201);

describe("operator endpoints — happy path", () => {
  it("makes a key for the operator account when none is named; it works at once", async () => {
    const made = await createKey({ plan: "free" });
    expect(made.key).toMatch(/^ps_test_[0-9A-Za-z]{32}$/);
    expect(made).toMatchObject({
      account: "operator@petstore.test",
      lastFour: made.key.slice(-4),
      hash: await hashApiKey(made.key),
      status: "active",
      limitsFrom: "key",
      plan: "free",
      perMinute: 60,
    });
    expect(await probe(made.key)).toEqual({ status: 200, limit: "60" });
  });

  it("answers with no-store: a new key and an invite link must never sit in a cache", async () => {
    const response = await admin("/keys", { json: {} });
    expect(response.status).toBe(201);
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    await response.body?.cancel();
  });

  it("makes the named account when it is new, and a key without a plan follows the account's", async () => {
    const email = uniqueEmail("ops");
    const made = await createKey({ account: email });
    expect(made).toMatchObject({ account: email, accountCreated: true, limitsFrom: "account" });
    expect(await probe(made.key)).toEqual({ status: 200, limit: "60" });
    const second = await createKey({ account: email });
    expect(second.accountCreated).toBe(false);
  });

  it("gives an Enterprise key its own numbers", async () => {
    const made = await createKey({ plan: "enterprise", perMinute: 7, perDay: 500 });
    expect(made).toMatchObject({ plan: "enterprise", perMinute: 7, perDay: 500 });
    expect(await probe(made.key)).toEqual({ status: 200, limit: "7" });
  });

  it("lists an account's keys, newest first, with their status", async () => {
    const email = uniqueEmail("list");
    const first = await createKey({ account: email });
    const second = await createKey({ account: email, plan: "pro" });
    await adminJson(`/keys/${first.hash}/revoke`, { method: "POST" });
    const listed = await adminJson<{
      account: { email: string; hasPassword: boolean };
      keys: KeySummary[];
    }>(`/keys?account=${encodeURIComponent(email)}`);
    expect(listed.account).toMatchObject({ email, hasPassword: false });
    expect(listed.keys.map((key) => [key.lastFour, key.status, key.plan])).toEqual([
      [second.lastFour, "active", "pro"],
      [first.lastFour, "revoked", "free"],
    ]);
    expect(JSON.stringify(listed)).not.toContain(first.key.slice(8));
  });

  it("revokes a key whose record this isolate still caches: the next request gets 401, and again", async () => {
    const made = await createKey({});
    expect((await probe(made.key)).status).toBe(200);
    const revoked = await adminJson<KeySummary>(`/keys/${made.hash}/revoke`, { method: "POST" });
    expect(revoked.status).toBe("revoked");
    expect((await probe(made.key)).status).toBe(401);
    const again = await adminJson<KeySummary>(`/keys/${made.hash}/revoke`, { method: "POST" });
    expect(again.status).toBe("revoked");
    expect((await probe(made.key)).status).toBe(401);
  });

  it("changes one key's plan from the next request, and sets it back to follow its account", async () => {
    // A Free account's key: the operator account, on Enterprise, would follow other numbers.
    const made = await createKey({ account: uniqueEmail("mover") });
    expect((await probe(made.key)).limit).toBe("60");
    const pro = await adminJson<KeySummary>(`/keys/${made.hash}/plan`, { json: { plan: "pro" } });
    expect(pro).toMatchObject({ limitsFrom: "key", plan: "pro", perMinute: 300 });
    expect((await probe(made.key)).limit).toBe("300");
    const back = await adminJson<KeySummary>(`/keys/${made.hash}/plan`, {
      json: { plan: "account" },
    });
    expect(back).toMatchObject({ limitsFrom: "account", plan: "free" });
    expect((await probe(made.key)).limit).toBe("60");
  });

  it("moves an account's plan: its keys follow from their next request", async () => {
    const email = uniqueEmail("plan");
    const made = await createKey({ account: email });
    const moved = await adminJson<{
      account: { plan: string; perMinute: number };
      keysUpdated: number;
    }>(`/accounts/${encodeURIComponent(email)}/plan`, {
      json: { plan: "enterprise", perMinute: 9, perDay: 900 },
    });
    expect(moved).toEqual({
      account: expect.objectContaining({ plan: "enterprise", perMinute: 9, perDay: 900 }),
      keysUpdated: 1,
    });
    expect((await probe(made.key)).limit).toBe("9");
  });

  it("invites the owner of an operator-made account: the link sets a password once", async () => {
    const email = uniqueEmail("invite");
    const made = await createKey({ account: email });
    const invite = await adminJson<{ link: string; accountCreated: boolean; expiresAt: string }>(
      `/accounts/${encodeURIComponent(email)}/invite`,
      { method: "POST" },
      201,
    );
    expect(invite.accountCreated).toBe(false);
    const link = new URL(invite.link);
    expect(link.pathname).toMatch(/^\/dashboard\/invite\/[\w-]{43}$/);
    expect(Date.parse(invite.expiresAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);

    const browser = new DashboardBrowser();
    const form = await browser.get(link.pathname);
    expect(form.status).toBe(200);
    expect(form.html).toContain("Set your password");
    expect(form.html).toContain(email);
    const set = await browser.post(link.pathname, { password: "a long enough passphrase" });
    expect(set.status, set.html).toBe(303);
    expect(set.location).toBe("/dashboard/account");
    const account = await browser.get("/dashboard/account");
    expect(account.html).toContain(`…${made.lastFour}`);
    expect(keysIn(account.html)).toEqual([]);

    const reused = await new DashboardBrowser().get(link.pathname);
    expect(reused.status).toBe(404);
    expect(reused.html).toContain("This link no longer works");
    const signIn = await new DashboardBrowser().signIn(email, "a long enough passphrase");
    expect(signIn.status).toBe(303);
  });

  it("shows an invite form posted without its token again (403); a dead link is 404 first", async () => {
    const email = uniqueEmail("invite");
    await createKey({ account: email });
    const { link } = await adminJson<{ link: string }>(
      `/accounts/${encodeURIComponent(email)}/invite`,
      { method: "POST" },
      201,
    );
    const path = new URL(link).pathname;
    const browser = new DashboardBrowser();
    await browser.get(path);
    const password = "a long enough passphrase";
    const stale = await browser.post(path, { password, csrf: "not-its-token" });
    expect(stale.status).toBe(403);
    expect(stale.html).toContain("This form had expired. Please try again.");
    expect(stale.html).toContain(email);
    const dead = await browser.post(`/dashboard/invite/${"A".repeat(43)}`, { password, csrf: "" });
    expect(dead.status).toBe(404);
    expect((await browser.post(path, { password })).status).toBe(303);
  });

  it("never lets sign-up take over an operator-made account", async () => {
    const email = uniqueEmail("taken");
    await createKey({ account: email });
    const page = await new DashboardBrowser().signUp(email);
    expect(page.status).toBe(409);
    const signIn = await new DashboardBrowser().signIn(email, "");
    expect(signIn.status).not.toBe(303);
  });
});

describe("operator endpoints — bad input", () => {
  const hash = "a".repeat(64);

  it.each([
    ["an unknown plan", { plan: "gold" }],
    ["an unknown field", { plan: "free", extra: 1 }],
    ["enterprise without numbers", { plan: "enterprise" }],
    ["numbers on a non-enterprise plan", { plan: "pro", perMinute: 1, perDay: 2 }],
    ["numbers without a plan", { perMinute: 1, perDay: 2 }],
    ["more a minute than a day", { plan: "enterprise", perMinute: 10, perDay: 5 }],
    ["a zero", { plan: "enterprise", perMinute: 0, perDay: 5 }],
    ["an account that is not an email", { account: "nobody" }],
  ])("refuses to create a key with %s: 400 invalid_request", async (_name, json) => {
    const response = await admin("/keys", { json });
    expect(response.status).toBe(400);
    expect(await jsonOf(response)).toMatchObject({ code: "invalid_request", status: 400 });
  });

  it("refuses an account email that sign-up would refuse, naming the field", async () => {
    const email = "<script>x</script>@test.example";
    const made = await admin("/keys", { json: { account: email } });
    const listed = await admin(`/keys?${new URLSearchParams({ account: email })}`);
    for (const response of [made, listed]) {
      expect(response.status).toBe(400);
      expect(await jsonOf(response)).toMatchObject({
        code: "invalid_request",
        details: [{ path: "account" }],
      });
    }
    const page = await new DashboardBrowser().signUp(email);
    expect(page.status).toBe(422);
    expect(page.html).toContain("Enter an email address like name@example.com.");
  });

  it("answers 404 for a key or account that does not exist, or a path that names none", async () => {
    for (const [path, json] of [
      [`/keys/${hash}/revoke`, undefined],
      [`/keys/${hash}/plan`, { plan: "pro" }],
      ["/keys/not-a-hash/revoke", undefined],
      ["/accounts/nobody%40example.com/plan", { plan: "pro" }],
    ] as const) {
      const response = await admin(path, json === undefined ? { method: "POST" } : { json });
      expect(response.status, path).toBe(404);
      expect(await jsonOf(response)).toMatchObject({ code: "not_found" });
    }
    const listed = await admin("/keys?account=nobody%40example.com");
    expect(listed.status).toBe(404);
    await listed.body?.cancel();
  });

  it("answers 415 for a body that is not JSON, and 405 with Allow for other methods", async () => {
    const response = await api("/admin/keys", {
      method: "POST",
      body: "plan=free",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "text/plain" },
    });
    expect(response.status).toBe(415);
    await response.body?.cancel();
    const wrongMethod = await admin(`/keys/${hash}/revoke`, { method: "DELETE" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("Allow")).toBe("POST");
    await wrongMethod.body?.cancel();
  });
});

describe("operator endpoints — auth", () => {
  it.each([
    ["no Authorization header", null],
    ["a wrong token", "wrong-token"],
    ["the token with one character more", `${ADMIN_TOKEN}x`],
    ["an empty token", ""],
  ])("answers 401 to %s and changes nothing", async (_name, token) => {
    const { key, hash } = await seedKey({ plan: "free" });
    const response = await admin(`/keys/${hash}/revoke`, { method: "POST", token });
    expect(response.status).toBe(401);
    expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(await jsonOf(response)).toMatchObject({ code: "unauthorized", status: 401 });
    expect((await probe(key)).status).toBe(200);
  });

  it("does not accept an API key in place of the operator token", async () => {
    const { key, hash } = await seedKey({ plan: "free" });
    const response = await admin(`/keys/${hash}/revoke`, { method: "POST", token: key });
    expect(response.status).toBe(401);
    await response.body?.cancel();
  });

  it("does not exist (404) where the configured ADMIN_TOKEN is too short to be safe", async () => {
    const logs: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line) => {
      logs.push(String(line));
    });
    const response = await createApp().request(
      "/admin/keys",
      {
        method: "POST",
        headers: { Authorization: "Bearer short", "Content-Type": "application/json" },
        body: JSON.stringify({ plan: "free" }),
      },
      { ...env, ADMIN_TOKEN: "short" },
    );
    spy.mockRestore();
    expect(response.status).toBe(404);
    await response.body?.cancel();
    expect(logs.join("\n")).toContain("ADMIN_TOKEN is shorter than 32 characters");
  });

  it("does not exist (404) where no ADMIN_TOKEN is configured", async () => {
    const response = await createApp().request(
      "/admin/keys",
      {
        method: "POST",
        headers: { Authorization: "Bearer ", "Content-Type": "application/json" },
        body: JSON.stringify({ plan: "free" }),
      },
      { ...env, ADMIN_TOKEN: "" },
    );
    expect(response.status).toBe(404);
    expect(await jsonOf(response)).toMatchObject({ code: "not_found" });
  });
});
