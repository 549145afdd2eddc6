import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  hashPassword,
  PBKDF2_ITERATIONS,
  verifyPassword,
} from "../../../src/dashboard/credentials.ts";
import { SESSION_TTL_MS } from "../../../src/dashboard/session.ts";
import {
  autofocused,
  DashboardBrowser,
  fieldError,
  PASSWORD,
  uniqueEmail,
} from "../support/dashboard-browser.ts";
import { ORIGIN } from "../support/request.ts";

afterEach(() => {
  vi.useRealTimers();
});

describe("sign-up", () => {
  it("creates an account on Free, signs in and lands on the account page", async () => {
    const browser = new DashboardBrowser();
    const email = uniqueEmail();
    const signedUp = await browser.signUp(email);
    expect(signedUp.status).toBe(303);
    expect(signedUp.location).toBe("/dashboard/account");
    const cookie = signedUp.response.headers
      .getSetCookie()
      .find((c) => c.startsWith("ps_session="));
    expect(cookie).toMatch(/; Max-Age=43200/);
    expect(cookie).toMatch(/; Path=\/dashboard/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; SameSite=Lax/);

    const account = await browser.get("/dashboard/account");
    expect(account.status).toBe(200);
    expect(account.response.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(account.html).toContain(email);
    expect(account.html).toMatch(/data-testid="plan">Free</);

    const row = await env.DB.prepare(
      "SELECT email, plan, password_hash FROM accounts WHERE email = ?",
    )
      .bind(email)
      .first<{ email: string; plan: string; password_hash: string }>();
    expect(row?.plan).toBe("free");
    expect(row?.password_hash).toMatch(/^pbkdf2-sha256\$100000\$[\w-]{22}\$[\w-]{43}$/);
    expect(row?.password_hash).not.toContain(PASSWORD);
  });

  it("stores the email lower-cased", async () => {
    const browser = new DashboardBrowser();
    const email = uniqueEmail("MixedCase");
    expect((await browser.signUp(`  ${email}  `)).status).toBe(303);
    const row = await env.DB.prepare("SELECT email FROM accounts WHERE email = ?")
      .bind(email.toLowerCase())
      .first<{ email: string }>();
    expect(row?.email).toBe(email.toLowerCase());
  });

  it("refuses a malformed email with a sentence next to the field", async () => {
    const browser = new DashboardBrowser();
    const page = await browser.signUp("not-an-email");
    expect(page.status).toBe(422);
    expect(page.response.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(fieldError(page.html, "email")).toBe("Enter an email address like name@example.com.");
    expect(fieldError(page.html, "password")).toBeUndefined();
    expect(page.html).toContain('value="not-an-email"');
    expect(autofocused(page.html)).toBe("email");
  });

  it("refuses an empty email", async () => {
    const page = await new DashboardBrowser().signUp("");
    expect(page.status).toBe(422);
    expect(fieldError(page.html, "email")).toBe("Enter your email address.");
  });

  it("refuses a password shorter than 12 characters", async () => {
    const browser = new DashboardBrowser();
    const email = uniqueEmail();
    const page = await browser.signUp(email, "elevenchars");
    expect(page.status).toBe(422);
    expect(fieldError(page.html, "password")).toBe("Use a password of at least 12 characters.");
    expect(page.html).not.toContain("elevenchars");
    const row = await env.DB.prepare("SELECT id FROM accounts WHERE email = ?").bind(email).first();
    expect(row).toBeNull();
  });

  it("accepts a password of exactly 12 characters", async () => {
    expect((await new DashboardBrowser().signUp(uniqueEmail(), "twelve chars")).status).toBe(303);
  });

  it("refuses an email already taken in another case", async () => {
    const email = uniqueEmail();
    expect((await new DashboardBrowser().signUp(email)).status).toBe(303);
    const page = await new DashboardBrowser().signUp(email.toUpperCase());
    expect(page.status).toBe(409);
    expect(fieldError(page.html, "email")).toBe(
      "An account with this email address already exists. Sign in instead.",
    );
    expect(page.response.headers.getSetCookie().some((c) => c.startsWith("ps_session="))).toBe(
      false,
    );
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM accounts WHERE lower(email) = ?")
      .bind(email.toLowerCase())
      .first<{ n: number }>();
    expect(rows?.n).toBe(1);
  });

  it("the database itself refuses a case variant of a taken email", async () => {
    const email = uniqueEmail();
    expect((await new DashboardBrowser().signUp(email)).status).toBe(303);
    const insert = env.DB.prepare(
      "INSERT INTO accounts (email, password_hash, plan, created_at) VALUES (?, 'x', 'free', 0)",
    ).bind(email.toUpperCase());
    await expect(insert.run()).rejects.toThrow(/UNIQUE/);
  });
});

describe("CSRF protection", () => {
  it("refuses a sign-up without a token", async () => {
    const browser = new DashboardBrowser();
    await browser.get("/dashboard/sign-up");
    const page = await browser.post("/dashboard/sign-up", {
      csrf: "",
      email: uniqueEmail(),
      password: PASSWORD,
    });
    expect(page.status).toBe(403);
    expect(page.html).toContain("This form had expired. Please try again.");
  });

  it("refuses a sign-up with a wrong token", async () => {
    const browser = new DashboardBrowser();
    await browser.get("/dashboard/sign-up");
    const page = await browser.post("/dashboard/sign-up", {
      csrf: browser.csrf.replace(/^./, (c) => (c === "A" ? "B" : "A")),
      email: uniqueEmail(),
      password: PASSWORD,
    });
    expect(page.status).toBe(403);
  });

  it("refuses a token made for another browser", async () => {
    const other = new DashboardBrowser();
    await other.get("/dashboard/sign-in");
    const browser = new DashboardBrowser();
    await browser.get("/dashboard/sign-in");
    const page = await browser.post("/dashboard/sign-in", {
      csrf: other.csrf,
      email: uniqueEmail(),
      password: PASSWORD,
    });
    expect(page.status).toBe(403);
  });

  it("refuses a signed-in form without its token, and a token from another session", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const missing = await browser.post("/dashboard/keys", { csrf: "" });
    expect(missing.status).toBe(403);
    expect(missing.html).toContain("did not come from this dashboard");

    const other = new DashboardBrowser();
    await other.newAccount();
    const foreign = await browser.post("/dashboard/keys", { csrf: other.csrf });
    expect(foreign.status).toBe(403);
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys").first<{ n: number }>();
    expect(count?.n).toBe(0);
  });

  it("refuses a post from another origin even with a valid token", async () => {
    const browser = new DashboardBrowser();
    await browser.get("/dashboard/sign-up");
    const page = await browser.post(
      "/dashboard/sign-up",
      { email: uniqueEmail(), password: PASSWORD },
      { Origin: "https://evil.example" },
    );
    expect(page.status).toBe(403);
    expect(page.response.headers.get("Content-Type")).toMatch(/^text\/html/);
  });

  it("refuses sign-out without a token and stays signed in", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    expect((await browser.post("/dashboard/sign-out", { csrf: "" })).status).toBe(403);
    expect((await browser.get("/dashboard/account")).status).toBe(200);
  });
});

describe("sign-in and sign-out", () => {
  it("signs in with the right password, in any case of the email", async () => {
    const email = uniqueEmail();
    await new DashboardBrowser().signUp(email);
    const browser = new DashboardBrowser();
    const page = await browser.signIn(email.toUpperCase());
    expect(page.status).toBe(303);
    expect(page.location).toBe("/dashboard/account");
    expect((await browser.get("/dashboard/account")).html).toContain(email);
  });

  it("refuses a wrong password with a sentence next to the field", async () => {
    const email = uniqueEmail();
    await new DashboardBrowser().signUp(email);
    const browser = new DashboardBrowser();
    const page = await browser.signIn(email, "not the password");
    expect(page.status).toBe(400);
    expect(fieldError(page.html, "password")).toBe("The email address or password is incorrect.");
    expect(autofocused(page.html)).toBe("password");
    expect(browser.cookies.has("ps_session")).toBe(false);
    expect((await browser.get("/dashboard/account")).location).toBe("/dashboard/sign-in");
  });

  it("answers an unknown email exactly as a wrong password", async () => {
    const page = await new DashboardBrowser().signIn(uniqueEmail("nobody"));
    expect(page.status).toBe(400);
    expect(fieldError(page.html, "password")).toBe("The email address or password is incorrect.");
  });

  it("asks for missing fields", async () => {
    const browser = new DashboardBrowser();
    await browser.get("/dashboard/sign-in");
    const page = await browser.post("/dashboard/sign-in", { email: "", password: "" });
    expect(page.status).toBe(422);
    expect(fieldError(page.html, "email")).toBe("Enter your email address.");
    expect(fieldError(page.html, "password")).toBe("Enter your password.");
    expect(autofocused(page.html)).toBe("email");
  });

  it("throttles sign-in attempts per account and address; the owner elsewhere still signs in", async () => {
    // The throttles count per UTC minute: a minute that ends mid-test would start the count again.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-21T08:00:00Z"));
    const email = uniqueEmail();
    await new DashboardBrowser().signUp(email);
    const attacker = new DashboardBrowser();
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await attacker.signIn(email, "wrong password")).status).toBe(400);
    }
    const page = await attacker.signIn(email);
    expect(page.status).toBe(429);
    expect(Number(page.response.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(page.html).toMatch(/Too many attempts. Wait \d+ seconds, then try again./);
    expect((await new DashboardBrowser().signIn(email)).status).toBe(303);
  });

  // 31 password hashes can take longer than the default 5 s on a busy two-core machine.
  it("throttles sign-in attempts per IP across accounts", { timeout: 30_000 }, async () => {
    // The throttles count per UTC minute: a minute that ends mid-test would start the count again.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-21T08:10:00Z"));
    const browser = new DashboardBrowser();
    for (let attempt = 0; attempt < 30; attempt += 1) {
      expect((await browser.signIn(uniqueEmail("spray"), "wrong password")).status).toBe(400);
    }
    expect((await browser.signIn(uniqueEmail("spray"), "wrong password")).status).toBe(429);
  });

  it("signs out: the cookie is cleared, the sign-in page says so and the account page sends to sign-in", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const page = await browser.post("/dashboard/sign-out");
    expect(page.status).toBe(303);
    expect(page.location).toBe("/dashboard/signed-out");
    expect(browser.cookies.has("ps_session")).toBe(false);
    const landing = await browser.get("/dashboard/signed-out");
    expect(landing.status).toBe(200);
    expect(landing.html).toContain("You have signed out.");
    expect(landing.html).toContain('action="/dashboard/sign-in"');
    expect((await browser.get("/dashboard/account")).location).toBe("/dashboard/sign-in");
  });
});

describe("sessions", () => {
  it("expire after 12 hours: the account page becomes the sign-in page and says why", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = new Date("2026-11-21T10:00:00Z");
    vi.setSystemTime(start);
    const browser = new DashboardBrowser();
    await browser.newAccount();

    vi.setSystemTime(start.getTime() + SESSION_TTL_MS - 1000);
    expect((await browser.get("/dashboard/account")).status).toBe(200);

    vi.setSystemTime(start.getTime() + SESSION_TTL_MS);
    const expired = await browser.get("/dashboard/account");
    expect(expired.status).toBe(200);
    expect(expired.html).toContain("Your session has expired. Please sign in again.");
    expect(expired.html).toContain('action="/dashboard/sign-in"');
    expect(browser.cookies.has("ps_session")).toBe(false);
    const signIn = await browser.get("/dashboard/sign-in");
    expect(signIn.html).not.toContain("Your session has expired.");
  });

  it("an expired cookie sent again is still refused, also for posts", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = new Date("2026-11-21T10:00:00Z");
    vi.setSystemTime(start);
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const cookie = `ps_session=${browser.cookies.get("ps_session")}`;
    vi.setSystemTime(start.getTime() + SESSION_TTL_MS + 1);
    const page = await browser.request("/dashboard/keys", {
      method: "POST",
      body: new URLSearchParams({ csrf: browser.csrf }),
      headers: { Origin: ORIGIN, Cookie: cookie },
    });
    expect(page.status).toBe(403);
    expect(page.html).toContain("Your session has expired. Please sign in again.");
    expect(page.html).toContain('action="/dashboard/sign-in"');
  });

  it("refuses a tampered cookie", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const [id, expires, ...rest] = (browser.cookies.get("ps_session") ?? "").split(".");
    browser.cookies.set("ps_session", [Number(id) + 1, expires, ...rest].join("."));
    const page = await browser.get("/dashboard/account");
    expect(page.status).toBe(303);
    expect(page.location).toBe("/dashboard/sign-in");
  });

  it("a signed-in visitor to the sign-in page goes to the account page", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    expect((await browser.get("/dashboard/sign-in")).location).toBe("/dashboard/account");
    expect((await browser.get("/dashboard/sign-up")).location).toBe("/dashboard/account");
  });
});

describe("pages", () => {
  it("/dashboard sends to the account page, which sends strangers to sign in", async () => {
    const browser = new DashboardBrowser();
    expect((await browser.get("/dashboard")).location).toBe("/dashboard/account");
    expect((await browser.get("/dashboard/account")).location).toBe("/dashboard/sign-in");
  });

  it("serves forms that work without JavaScript and load nothing from elsewhere", async () => {
    const page = await new DashboardBrowser().get("/dashboard/sign-up");
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/^<!DOCTYPE html>|^<html/);
    expect(page.html).toMatch(/<form method="post" action="\/dashboard\/sign-up">/);
    expect(page.html).not.toMatch(/<script|<link|src="http|@import|url\(/i);
    const headers = page.response.headers;
    expect(headers.get("Cache-Control")).toBe("no-store");
    expect(headers.get("Content-Security-Policy")).toContain("default-src 'none'");
    expect(headers.get("X-Frame-Options")).toBe("DENY");
  });

  it("answers unknown dashboard pages with an HTML 404", async () => {
    const browser = new DashboardBrowser();
    for (const path of ["/dashboard/nope", "/dashboard/keys/x/y/z", "/dashboard/sign-out"]) {
      const page = await browser.get(path);
      expect(page.status).toBe(404);
      expect(page.response.headers.get("Content-Type")).toMatch(/^text\/html/);
      expect(page.response.headers.get("Cache-Control")).toBe("no-store");
      expect(page.html).toContain("There is no dashboard page at this address.");
    }
  });

  it("needs no API key and gets no rate-limit headers", async () => {
    const page = await new DashboardBrowser().get("/dashboard/sign-in");
    expect(page.status).toBe(200);
    expect(page.response.headers.get("WWW-Authenticate")).toBeNull();
    expect(page.response.headers.get("X-RateLimit-Limit")).toBeNull();
  });
});

describe("password hashing", () => {
  it("uses the most PBKDF2 iterations deployed Workers allow, and no more", () => {
    // Cloudflare refuses a PBKDF2 call above 100,000 iterations; local workerd does not, so pin it.
    expect(PBKDF2_ITERATIONS).toBe(100_000);
  });

  it("salts each hash, so equal passwords hash differently", async () => {
    const first = await hashPassword(PASSWORD);
    const second = await hashPassword(PASSWORD);
    expect(first).not.toBe(second);
    expect(await verifyPassword(PASSWORD, first)).toBe(true);
    expect(await verifyPassword(PASSWORD, second)).toBe(true);
    expect(await verifyPassword(`${PASSWORD}!`, first)).toBe(false);
    expect(await verifyPassword(PASSWORD, "md5$1$x$y")).toBe(false);
  });
});
