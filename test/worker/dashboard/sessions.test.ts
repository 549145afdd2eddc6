import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SESSION_TTL_MS } from "../../../src/dashboard/session.ts";
import { sha256Hex } from "../../../src/utils/sha256.ts";
import { DashboardBrowser, PASSWORD, uniqueEmail } from "../support/dashboard-browser.ts";
import { sessionRecordingD1 } from "../support/recording-d1.ts";
import { runScheduled } from "../support/scheduled.ts";

afterEach(() => {
  vi.useRealTimers();
});

async function sessionHashes(): Promise<string[]> {
  const { results } = await env.DB.prepare("SELECT token_hash FROM dashboard_sessions").all<{
    token_hash: string;
  }>();
  return results.map((row) => row.token_hash);
}

async function keyCount(): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys").first<{ n: number }>();
  return row?.n ?? 0;
}

/** A browser that sends what another one held: its session cookie and its last CSRF token. */
function replaying(cookie: string, csrf: string): DashboardBrowser {
  const replay = new DashboardBrowser();
  replay.cookies.set("ps_session", cookie);
  replay.csrf = csrf;
  return replay;
}

async function signedInBrowser() {
  const browser = new DashboardBrowser();
  const email = uniqueEmail();
  await browser.newAccount(email);
  return { browser, email, cookie: browser.cookies.get("ps_session") ?? "" };
}

describe("sessions live in D1", () => {
  it("the cookie holds a random token; D1 holds only its SHA-256", async () => {
    const { cookie } = await signedInBrowser();
    expect(cookie).toMatch(/^[\w-]{43}$/);
    const hashes = await sessionHashes();
    expect(hashes).toContain(await sha256Hex(cookie));
    expect(hashes.join()).not.toContain(cookie);
  });

  it("signing out ends the session: its cookie replayed is signed out and makes no key", async () => {
    const { browser, cookie } = await signedInBrowser();
    const csrf = browser.csrf;
    expect((await browser.post("/dashboard/sign-out")).status).toBe(303);
    expect(await sessionHashes()).not.toContain(await sha256Hex(cookie));

    const replay = replaying(cookie, csrf);
    const page = await replay.get("/dashboard/account");
    expect(page.status).toBe(303);
    expect(page.location).toBe("/dashboard/sign-in");
    expect(replay.cookies.has("ps_session")).toBe(false);

    const post = await replaying(cookie, csrf).post("/dashboard/keys");
    expect(post.status).toBe(303);
    expect(post.location).toBe("/dashboard/sign-in");
    expect(await keyCount()).toBe(0);
  });

  it("signing out in one browser leaves the account's other sessions signed in", async () => {
    const { browser, email } = await signedInBrowser();
    const other = new DashboardBrowser();
    expect((await other.signIn(email)).status).toBe(303);
    await browser.post("/dashboard/sign-out");
    expect((await other.get("/dashboard/account")).status).toBe(200);
  });

  it("signing in again replaces the session the browser held", async () => {
    const { browser, cookie, email } = await signedInBrowser();
    // The sign-in form is for signed-out browsers; a stale tab may still post it.
    const fresh = new DashboardBrowser(browser.ip);
    await fresh.get("/dashboard/sign-in");
    fresh.cookies.set("ps_session", cookie);
    expect((await fresh.post("/dashboard/sign-in", { email, password: PASSWORD })).status).toBe(
      303,
    );
    const hashes = await sessionHashes();
    expect(hashes).not.toContain(await sha256Hex(cookie));
    expect(hashes).toContain(await sha256Hex(fresh.cookies.get("ps_session") ?? ""));
  });

  it("a cookie that names no session is signed out and cleared", async () => {
    const { cookie, browser } = await signedInBrowser();
    for (const forged of [
      `${cookie.slice(0, -1)}${cookie.endsWith("A") ? "B" : "A"}`,
      "A".repeat(43),
      "not a token",
    ]) {
      const replay = replaying(forged, browser.csrf);
      const page = await replay.get("/dashboard/account");
      expect(page.location, forged).toBe("/dashboard/sign-in");
      expect(replay.cookies.has("ps_session")).toBe(false);
    }
  });
});

describe("reads at scale", () => {
  /** The bookmark the session's row keeps. */
  async function keptBookmark(cookie: string): Promise<string | null | undefined> {
    const row = await env.DB.prepare("SELECT bookmark FROM dashboard_sessions WHERE token_hash = ?")
      .bind(await sha256Hex(cookie))
      .first<{ bookmark: string | null }>();
    return row?.bookmark;
  }

  it("a post keeps its bookmark with the session; the next page reads at least that fresh", async () => {
    const { browser, cookie } = await signedInBrowser();
    expect(await keptBookmark(cookie)).toBeNull();
    await browser.createKey();
    const first = await keptBookmark(cookie);
    expect(first).toMatch(/^[0-9a-f]{8}(-[0-9a-f]+)+$/);

    const starts: string[] = [];
    const page = await browser.request("/dashboard/account", {
      bindings: { DB: sessionRecordingD1(starts) },
    });
    expect(page.status).toBe(200);
    // Whether the session holds is read at the primary; the page, at the session's bookmark.
    expect(starts).toEqual(["first-primary", first]);

    expect((await browser.post("/dashboard/keys")).status).toBe(303);
    const second = await keptBookmark(cookie);
    expect((second ?? "") > (first ?? "")).toBe(true);
  });

  it("a post starts at the primary", async () => {
    const { browser } = await signedInBrowser();
    const starts: string[] = [];
    const created = await browser.request("/dashboard/keys", {
      method: "POST",
      body: new URLSearchParams({ csrf: browser.csrf }),
      headers: { Origin: "https://petstore.test" },
      bindings: { DB: sessionRecordingD1(starts) },
    });
    expect(created.status).toBe(303);
    expect(starts).toEqual(["first-primary", "first-primary"]);
  });
});

describe("ended sessions", () => {
  it("are refused at once and removed by the scheduled job; live ones stay", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.parse("2031-05-01T08:00:00Z");
    vi.setSystemTime(start);
    const { cookie: old } = await signedInBrowser();
    vi.setSystemTime(start + 6 * 3_600_000);
    const { cookie: young } = await signedInBrowser();

    vi.setSystemTime(start + SESSION_TTL_MS);
    expect((await replaying(old, "").get("/dashboard/account")).html).toContain(
      "Your session has expired.",
    );
    expect((await replaying(young, "").get("/dashboard/account")).status).toBe(200);

    await runScheduled();
    const hashes = await sessionHashes();
    expect(hashes).not.toContain(await sha256Hex(old));
    expect(hashes).toContain(await sha256Hex(young));
  });

  it("an expired session is removed when its cookie comes back, without waiting for the job", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.parse("2031-05-02T08:00:00Z");
    vi.setSystemTime(start);
    const { cookie } = await signedInBrowser();
    vi.setSystemTime(start + SESSION_TTL_MS + 1);
    const page = await replaying(cookie, "").get("/dashboard/account");
    expect(await sessionHashes()).not.toContain(await sha256Hex(cookie));
    expect(page.html).toContain("Your session has expired. Please sign in again.");
  });
});

describe("what the sign-in page says", () => {
  it("cannot be made to say anything through its address", async () => {
    const browser = new DashboardBrowser();
    for (const query of ["?signed-out=1", "?expired=1", "?notice=You%20have%20signed%20out."]) {
      const page = await browser.get(`/dashboard/sign-in${query}`);
      expect(page.status).toBe(200);
      expect(page.html).not.toContain('class="notice"');
    }
  });

  it("says 'signed out' where signing out lands, and only to a browser that is signed out", async () => {
    const { browser } = await signedInBrowser();
    const stillIn = await browser.get("/dashboard/signed-out");
    expect(stillIn.status).toBe(303);
    expect(stillIn.location).toBe("/dashboard/account");
    const out = await browser.post("/dashboard/sign-out");
    expect(out.location).toBe("/dashboard/signed-out");
    expect((await browser.get("/dashboard/signed-out")).html).toContain("You have signed out.");
    expect((await browser.get("/dashboard/sign-in")).html).not.toContain("You have signed out.");
  });
});
