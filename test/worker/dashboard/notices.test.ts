import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { NOTICE_TTL_MS, openNotice } from "../../../src/dashboard/notices.ts";
import { sha256Hex } from "../../../src/utils/sha256.ts";
import { DashboardBrowser, keyHashOnPage, keysIn } from "../support/dashboard-browser.ts";
import { runScheduled } from "../support/scheduled.ts";

afterEach(() => {
  vi.useRealTimers();
});

async function noticeRows(): Promise<{ session_hash: string; sealed: string }[]> {
  const { results } = await env.DB.prepare("SELECT session_hash, sealed FROM session_notices").all<{
    session_hash: string;
    sealed: string;
  }>();
  return results;
}

async function keyCount(): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys").first<{ n: number }>();
  return row?.n ?? 0;
}

async function signedIn(): Promise<DashboardBrowser> {
  const browser = new DashboardBrowser();
  await browser.newAccount();
  return browser;
}

describe("Post/Redirect/Get", () => {
  it("creating a key answers 303; the page shows it once; reloads make no second key", async () => {
    const browser = await signedIn();
    const before = await keyCount();
    const created = await browser.post("/dashboard/keys");
    expect(created.status).toBe(303);
    expect(created.location).toBe("/dashboard/account");
    expect(keysIn(created.html)).toEqual([]);

    const shown = await browser.get("/dashboard/account");
    expect(shown.status).toBe(200);
    const [key] = keysIn(shown.html);
    expect(key).toMatch(/^ps_test_/);
    for (let reload = 0; reload < 3; reload += 1) {
      const again = await browser.get("/dashboard/account");
      expect(keysIn(again.html)).toEqual([]);
      expect(again.html).toContain(`…${key?.slice(-4)}`);
    }
    expect(await keyCount()).toBe(before + 1);
  });

  it("rolling answers 303 and the new key is shown once, with the old key's grace", async () => {
    const browser = await signedIn();
    const { key, page } = await browser.createKey();
    const before = await keyCount();
    const rolled = await browser.post(
      `/dashboard/keys/${keyHashOnPage(page.html, key.slice(-4))}/roll`,
    );
    expect(rolled.status).toBe(303);
    expect(rolled.location).toBe("/dashboard/account");
    const shown = await browser.get("/dashboard/account");
    expect(keysIn(shown.html)).toHaveLength(1);
    expect(shown.html).toContain(`The old key ending …${key.slice(-4)} keeps working until`);
    const again = await browser.get("/dashboard/account");
    expect(keysIn(again.html)).toEqual([]);
    expect(again.html).not.toContain("keeps working until");
    expect(await keyCount()).toBe(before + 1);
  });

  it("signing up, in and out answer 303 too", async () => {
    const browser = new DashboardBrowser();
    const signedUp = await browser.signUp(`prg-${crypto.randomUUID()}@example.com`);
    expect(signedUp.status).toBe(303);
    await browser.get("/dashboard/account");
    const signedOut = await browser.post("/dashboard/sign-out");
    expect(signedOut.status).toBe(303);
  });
});

describe("one-time notices", () => {
  it("are sealed with the cookie's secret: what D1 holds does not reveal the key", async () => {
    const browser = await signedIn();
    await browser.post("/dashboard/keys");
    const [row] = await noticeRows();
    const token = browser.cookies.get("ps_session") ?? "";
    const sessionId = await sha256Hex(token);
    expect(row?.session_hash).toBe(sessionId);
    const sealed = row?.sealed ?? "";
    expect(sealed).not.toMatch(/ps_test_/);

    // D1 knows the session only by its hash; with that alone the notice does not open.
    expect(await openNotice(sessionId, sessionId, sealed)).toBeUndefined();
    const opened = JSON.parse((await openNotice(token, sessionId, sealed)) ?? "{}") as {
      key?: string;
    };
    const shown = await browser.get("/dashboard/account");
    expect(keysIn(shown.html)).toEqual([opened.key]);
    expect(JSON.stringify(await noticeRows())).not.toContain(opened.key);
  });

  it("are deleted when shown", async () => {
    const browser = await signedIn();
    await browser.post("/dashboard/keys");
    expect(await noticeRows()).toHaveLength(1);
    await browser.get("/dashboard/account");
    expect(await noticeRows()).toEqual([]);
  });

  it("belong to their session: another session of the account does not see them", async () => {
    const browser = new DashboardBrowser();
    const email = `twin-${crypto.randomUUID()}@example.com`;
    await browser.newAccount(email);
    const twin = new DashboardBrowser();
    expect((await twin.signIn(email)).status).toBe(303);

    await browser.post("/dashboard/keys");
    expect(keysIn((await twin.get("/dashboard/account")).html)).toEqual([]);
    expect(keysIn((await browser.get("/dashboard/account")).html)).toHaveLength(1);
  });

  it("moved to another session's row, do not open there", async () => {
    const owner = await signedIn();
    await owner.post("/dashboard/keys");
    const thief = await signedIn();
    const thiefSession = await sha256Hex(thief.cookies.get("ps_session") ?? "");
    await env.DB.prepare("UPDATE session_notices SET session_hash = ?").bind(thiefSession).run();
    const page = await thief.get("/dashboard/account");
    expect(page.status).toBe(200);
    expect(keysIn(page.html)).toEqual([]);
  });

  it("expire after five minutes unseen; the scheduled job removes them", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.parse("2031-06-01T09:00:00Z");
    vi.setSystemTime(start);
    const late = await signedIn();
    await late.post("/dashboard/keys");
    vi.setSystemTime(start + NOTICE_TTL_MS);
    const page = await late.get("/dashboard/account");
    expect(keysIn(page.html)).toEqual([]);
    expect(page.html).toMatch(/data-key-last-four="\w{4}"/);

    const away = await signedIn();
    await away.post("/dashboard/keys");
    vi.setSystemTime(start + 2 * NOTICE_TTL_MS);
    await runScheduled();
    expect(await noticeRows()).toEqual([]);
  });

  it("go with their session when it is signed out", async () => {
    const browser = await signedIn();
    await browser.post("/dashboard/keys");
    await browser.post("/dashboard/sign-out");
    expect(await noticeRows()).toEqual([]);
  });

  it("cannot be forged through the address", async () => {
    const browser = await signedIn();
    const { key } = await browser.createKey();
    for (const query of [
      "?revoked=ABCD",
      `?revoked=${key.slice(-4)}`,
      `?key=${key}`,
      "?newKey=ps_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      "?notice=The%20key%20ending%20%E2%80%A6ABCD%20is%20revoked",
    ]) {
      const page = await browser.get(`/dashboard/account${query}`);
      expect(page.status).toBe(200);
      expect(page.html, query).not.toContain('class="notice"');
      expect(page.html, query).not.toContain("is revoked");
      expect(keysIn(page.html), query).toEqual([]);
    }
  });
});
