import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { findAccountByEmail } from "../../../src/accounts/accounts.queries.ts";
import { accountUsage } from "../../../src/dashboard/account-usage.ts";
import { hashApiKey, keyRecordName } from "../../../src/keys/key-format.ts";
import { KeyRecordSchema } from "../../../src/keys/key-record.ts";
import { listAccountKeys } from "../../../src/keys/keys.queries.ts";
import type { RateLimitClient } from "../../../src/rate-limit/rate-limit-client.ts";
import {
  autofocused,
  DashboardBrowser,
  keysIn,
  uniqueEmail,
} from "../support/dashboard-browser.ts";
import { testServices } from "../support/keys.ts";
import { api } from "../support/request.ts";

const READ_ONLY = ["pets:read", "orders:read", "events:read", "webhooks:read"];
const DAY = 86_400_000;

async function statusOf(key: string, method = "GET"): Promise<number> {
  const response = await api("/v1/pets", {
    method,
    key,
    json: method === "POST" ? { name: "Biscuit", categoryId: 1 } : undefined,
  });
  await response.text();
  return response.status;
}

/** Posts the new-key form and, when it is accepted, returns the key the account page shows once. */
async function createWith(browser: DashboardBrowser, fields: Record<string, string>) {
  await browser.get("/dashboard/keys/new");
  const posted = await browser.post("/dashboard/keys", fields);
  if (posted.status !== 303) return { posted, key: undefined };
  expect(posted.location).toBe("/dashboard/account");
  const page = await browser.get("/dashboard/account");
  return { posted, key: keysIn(page.html)[0], page };
}

describe("the new-key form", () => {
  it("makes a read-only key that expires, from chosen addresses, and lists it so", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const form = await browser.get("/dashboard/keys/new");
    expect(form.status).toBe(200);
    expect(form.html).toContain("pets:read, orders:read, events:read, webhooks:read");
    const { key, page } = await createWith(browser, {
      access: "read",
      expires: "30",
      ranges: "203.0.113.0/24\n::ffff:198.51.0.0/112, 2001:db8::/32",
    });
    expect(key).toMatch(/^ps_test_/);
    const hash = await hashApiKey(key ?? "");
    const record = KeyRecordSchema.parse(await env.API_KEYS.get(keyRecordName(hash), "json"));
    expect(record.scopes).toEqual(READ_ONLY);
    expect(record.allowedRanges).toEqual(["203.0.113.0/24", "198.51.0.0/16", "2001:db8::/32"]);
    expect(record.expiresAt).toBeGreaterThan(Date.now() + 30 * DAY - 60_000);
    expect(record.expiresAt).toBeLessThanOrEqual(Date.now() + 30 * DAY);

    const row = /data-key-last-four="[^"]+"[\s\S]*?<\/tr>/.exec(page?.html ?? "")?.[0] ?? "";
    expect(row).toContain('<span data-testid="access">Read only</span>');
    expect(row).toContain("From 203.0.113.0/24, 198.51.0.0/16, 2001:db8::/32");
    expect(row).toContain(new Date(record.expiresAt ?? 0).toISOString().slice(0, 10));
    expect(row).toMatch(/data-testid="last-used">Never</);
  });

  it("gives each scope ticked, and a key without fields has full access for ever", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const chosen = await createWith(browser, {
      access: "chosen",
      scope: "pets:write",
      expires: "never",
    });
    expect(await statusOf(chosen.key ?? "")).toBe(403);
    expect(chosen.page?.html).toContain('<span data-testid="access">pets:write</span>');

    const plain = await createWith(browser, {});
    const hash = await hashApiKey(plain.key ?? "");
    const record = KeyRecordSchema.parse(await env.API_KEYS.get(keyRecordName(hash), "json"));
    expect(record.scopes).toHaveLength(7);
    expect(record.expiresAt).toBeUndefined();
    expect(record.allowedRanges).toBeUndefined();
    expect(await statusOf(plain.key ?? "", "POST")).not.toBe(403);
  });

  it("shows last use, asking each key's object once for everything the page shows", async () => {
    const browser = new DashboardBrowser();
    const email = uniqueEmail();
    await browser.newAccount(email);
    const used = (await createWith(browser, { access: "read" })).key ?? "";
    await createWith(browser, {});
    const before = Math.floor(Date.now() / 60_000) * 60_000;
    expect(await statusOf(used)).toBe(200);
    const page = await browser.get("/dashboard/account");

    const { db, limiter } = testServices();
    const calls: string[] = [];
    const counting: RateLimitClient = {
      ...limiter,
      keyReport: (hash, limits) => {
        calls.push(hash);
        return limiter.keyReport(hash, limits);
      },
    };
    const account = await findAccountByEmail(db, email);
    const keys = await listAccountKeys(db, account?.id ?? 0);
    expect(keys).toHaveLength(2);
    const usage = await accountUsage(counting, keys);
    expect(calls.sort()).toEqual(keys.map((key) => key.hash).sort());
    const lastUse = usage.byKey.get(await hashApiKey(used))?.lastUse ?? 0;
    expect(lastUse).toBeGreaterThanOrEqual(before);
    expect(lastUse).toBeLessThanOrEqual(Date.now());
    const minute = new Date(lastUse).toISOString().slice(0, 16).replace("T", " ");
    expect(page.html).toContain(`data-testid="last-used">${minute} UTC<`);
    expect(page.html).toContain('data-testid="last-used">Never<');
  });
});

describe("the new-key form refuses", () => {
  it("each bad range with its own sentence, as posted, the focus on the first field in error", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const { posted } = await createWith(browser, {
      access: "read",
      expires: "7",
      ranges: "10.0.0.0/8\n10.0.0.1/33\nnot-an-address\n192.168.1.7/24",
    });
    expect(posted.status).toBe(400);
    expect(posted.html).toContain("&quot;10.0.0.1/33&quot;: the prefix length is at most 32.");
    expect(posted.html).toContain("&quot;not-an-address&quot; is not an address or CIDR range.");
    expect(posted.html).toContain("did you mean 192.168.1.0/24?");
    expect(autofocused(posted.html)).toBe("ranges");
    expect(posted.html).toMatch(/id="access-read"[^>]*checked/);
    expect(posted.html).toMatch(/id="expires-7"[^>]*checked/);
    expect(posted.html).toContain("10.0.0.1/33\nnot-an-address");
    expect(keysIn((await browser.get("/dashboard/account")).html)).toEqual([]);
  });

  it("more than ten ranges, no scope ticked, scopes beside a preset, an unknown life", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const eleven = Array.from({ length: 11 }, (_, i) => `10.0.${i}.0/24`).join("\n");
    const tooMany = await createWith(browser, { ranges: eleven });
    expect(tooMany.posted.status).toBe(400);
    expect(tooMany.posted.html).toContain("At most 10 ranges.");

    const none = await createWith(browser, { access: "chosen", expires: "forever" });
    expect(none.posted.status).toBe(400);
    expect(none.posted.html).toContain("Tick at least one scope");
    expect(none.posted.html).toContain("Choose 7, 30 or 90 days, 1 year, or never.");
    expect(autofocused(none.posted.html)).toBe("scope-pets_read");

    const both = await createWith(browser, { access: "full", scope: "pets:read" });
    expect(both.posted.status).toBe(400);
    expect(both.posted.html).toContain("You ticked scopes");

    const odd = await createWith(browser, { access: "admin" });
    expect(odd.posted.status).toBe(400);
    expect(autofocused(odd.posted.html)).toBe("access-full");
    expect(keysIn((await browser.get("/dashboard/account")).html)).toEqual([]);
  });

  it("a post without the form's token, and shows the form only to a session", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    await browser.get("/dashboard/keys/new");
    const forged = await browser.post("/dashboard/keys", { csrf: "forged", access: "read" });
    expect(forged.status).toBe(403);
    expect(keysIn((await browser.get("/dashboard/account")).html)).toEqual([]);
    expect((await browser.get("/dashboard/account")).html).toContain("You have no keys yet.");

    const stranger = new DashboardBrowser();
    const page = await stranger.get("/dashboard/keys/new");
    expect(page.status).toBe(303);
    expect(page.location).toBe("/dashboard/sign-in");
  });
});
