import { describe, expect, it } from "vitest";
import { DashboardBrowser, keyHashOnPage, keysIn } from "../support/dashboard-browser.ts";
import { api } from "../support/request.ts";

async function statusWith(key: string): Promise<number> {
  const response = await api("/v1/pets", { key });
  await response.text();
  return response.status;
}

describe("revoking asks first", () => {
  it("the account page links to a confirmation page; only its form revokes", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const { key, page } = await browser.createKey();
    const hash = keyHashOnPage(page.html, key.slice(-4));
    expect(page.html).toContain(`href="/dashboard/keys/${hash}/revoke"`);
    expect(page.html).not.toContain(`action="/dashboard/keys/${hash}/revoke"`);

    const confirm = await browser.get(`/dashboard/keys/${hash}/revoke`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain("Revoke this key?");
    expect(confirm.html).toContain(`…${key.slice(-4)}`);
    expect(confirm.html).toContain(`<form method="post" action="/dashboard/keys/${hash}/revoke">`);
    expect(confirm.html).toContain('href="/dashboard/account"');
    expect(confirm.html).not.toMatch(/<script/);
    expect(await statusWith(key)).toBe(200);

    const revoked = await browser.post(`/dashboard/keys/${hash}/revoke`);
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe("/dashboard/account");
    expect(await statusWith(key)).toBe(401);

    const shown = await browser.get("/dashboard/account");
    expect(shown.html).toContain(`The key ending …${key.slice(-4)} is revoked`);
    expect((await browser.get("/dashboard/account")).html).not.toContain("is revoked");
    expect(keysIn(shown.html)).toEqual([]);
  });

  it("a key that already ended has nothing to confirm", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const { key, page } = await browser.createKey();
    const hash = keyHashOnPage(page.html, key.slice(-4));
    await browser.post(`/dashboard/keys/${hash}/revoke`);
    const confirm = await browser.get(`/dashboard/keys/${hash}/revoke`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain("This key no longer works");
    expect(confirm.html).not.toContain('<form method="post" action="/dashboard/keys/');
  });

  it("shows nothing of another account's key, and needs a session", async () => {
    const owner = new DashboardBrowser();
    await owner.newAccount();
    const { key, page } = await owner.createKey();
    const hash = keyHashOnPage(page.html, key.slice(-4));

    const intruder = new DashboardBrowser();
    await intruder.newAccount();
    const attempt = await intruder.get(`/dashboard/keys/${hash}/revoke`);
    expect(attempt.status).toBe(404);
    expect(attempt.html).not.toContain(key.slice(-4));

    const stranger = await new DashboardBrowser().get(`/dashboard/keys/${hash}/revoke`);
    expect(stranger.status).toBe(303);
    expect(stranger.location).toBe("/dashboard/sign-in");
  });
});

describe("the pages' style sheet", () => {
  it("is the one the CSP names by its hash; no other inline style may apply", async () => {
    const browser = new DashboardBrowser();
    const page = await browser.get("/dashboard/sign-in");
    const styles = /<style>([\s\S]*?)<\/style>/.exec(page.html)?.[1] ?? "";
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(styles)),
    );
    const hash = btoa(String.fromCharCode(...digest));
    const csp = page.response.headers.get("Content-Security-Policy") ?? "";
    expect(csp.split(";").map((directive) => directive.trim())).toContain(
      `style-src 'sha256-${hash}'`,
    );
    expect(csp).not.toContain("unsafe-inline");
  });
});

describe("the copy button", () => {
  it("is the one script a page may run, served here and named alone by the CSP", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const { page } = await browser.createKey();
    expect(page.html).toContain('<script src="/dashboard/copy-key.js" defer=""></script>');
    expect(page.html).toMatch(
      /<button type="button" class="secondary" data-copy-from="new-key-0"[^>]* hidden="">Copy<\/button>/,
    );
    const csp = page.response.headers.get("Content-Security-Policy") ?? "";
    const directives = csp.split(";").map((directive) => directive.trim());
    expect(directives).toContain("default-src 'none'");
    expect(directives).toContain("script-src https://petstore.test/dashboard/copy-key.js");
    expect(csp).not.toMatch(/unsafe-eval|'self'.*script|script-src[^;]*'unsafe-inline'/);

    const script = await browser.get("/dashboard/copy-key.js");
    expect(script.status).toBe(200);
    expect(script.response.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
    expect(script.response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(script.html).toContain("navigator.clipboard.writeText");
  });

  it("appears only with a new key: other pages load no script", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    await browser.createKey();
    for (const path of ["/dashboard/account", "/dashboard/sign-up"]) {
      const page = await (path === "/dashboard/sign-up" ? new DashboardBrowser() : browser).get(
        path,
      );
      expect(page.html, path).not.toMatch(/<script/);
    }
  });
});
