/**
 * The dashboard in a real browser (headless Chromium): sign up, create a key
 * and copy it, reload, use the key, see it in the usage chart, roll it,
 * revoke it through the confirmation page, sign out and replay the old
 * cookie; then the same without JavaScript. Run with `npm run test:browser`;
 * screenshots of each page at 1280 and 390 px wide land in .screenshots/.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from "./chromium.ts";
import { focused, screenshotFolder, screenshots, signUp, submit } from "./dashboard-pages.ts";
import { startWorker, type WorkerServer } from "./worker-server.ts";

requireChromium();

let server: WorkerServer;
let browser: Browser;

before(async () => {
  server = await startWorker();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  await screenshotFolder();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function petsStatus(key: string, method = "GET"): Promise<number> {
  const response = await fetch(`${server.origin}/v1/pets`, {
    method,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: method === "POST" ? JSON.stringify({ name: "Biscuit", categoryId: 1 }) : undefined,
  });
  await response.text();
  return response.status;
}

const keyRow = (page: Page, key: string) =>
  page.locator(`tr[data-key-last-four="${key.slice(-4)}"]`);

test("sign up, create and copy a key, use it, chart it, roll it, revoke it, sign out", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.origin });
  const page = await context.newPage();
  const account = `${server.origin}/dashboard/account`;

  await page.goto(`${server.origin}/dashboard/sign-up`);
  await screenshots(page, "sign-up");
  await signUp(page, server.origin, `browser-${Date.now()}@example.com`);
  assert.equal(await page.getByTestId("plan").textContent(), "Free");
  await screenshots(page, "account-new");

  // Create: the post answers 303, so the address is the account page's and a reload repeats nothing.
  await page.getByRole("link", { name: "Create a key" }).click();
  await page.waitForURL(`${server.origin}/dashboard/keys/new`);
  await screenshots(page, "key-form");
  await page.getByRole("button", { name: "Create the key" }).click();
  await page.waitForURL(account);
  const key = await page.getByTestId("new-key").inputValue();
  assert.match(key, /^ps_test_[0-9A-Za-z]{32}$/);
  await page.getByRole("button", { name: "Copy" }).click();
  await page.getByText("Copied to the clipboard.").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
  await screenshots(page, "key-created");

  await page.reload();
  assert.equal(await page.getByTestId("new-key").count(), 0, "the key is shown only once");
  assert.equal(await page.locator("tr[data-key-last-four]").count(), 1, "a reload makes no key");
  await page.goBack();
  await page.goForward();
  assert.equal(await page.getByTestId("new-key").count(), 0);
  assert.equal(await page.locator("tr[data-key-last-four]").count(), 1);

  // Use the key; the chart of the last 24 hours gets a bar for this hour.
  assert.equal(await petsStatus(key), 200);
  await page.reload();
  assert.equal(await page.getByTestId("usage-day").textContent(), "1");
  const hour = `${new Date().toISOString().slice(0, 13)}:00:00.000Z`;
  const bar = page.locator(`[data-testid="chart-account-hourly"] rect.bar[data-start="${hour}"]`);
  assert.equal(await bar.getAttribute("data-count"), "1");
  assert.equal(await page.locator('[data-testid="chart-account-hourly"] rect.bar').count(), 1);
  await page.locator(`details[data-usage-of="${key.slice(-4)}"] > summary`).click();
  await screenshots(page, "usage");

  // Roll: a new key shown once, the old one working through its grace period.
  await keyRow(page, key).getByRole("button", { name: "Roll" }).click();
  await page.waitForURL(account);
  const rolled = await page.getByTestId("new-key").inputValue();
  assert.notEqual(rolled, key);
  assert.match((await page.locator(".notice").textContent()) ?? "", /keeps working until/);
  await screenshots(page, "key-rolled");
  assert.equal(await petsStatus(rolled), 200);
  assert.equal(await petsStatus(key), 200);

  // Revoke asks first; only the confirmation's button revokes.
  await keyRow(page, key).getByRole("link", { name: "Revoke" }).click();
  await page.waitForURL(/\/dashboard\/keys\/[0-9a-f]{64}\/revoke$/);
  await screenshots(page, "revoke-confirm");
  assert.equal(await petsStatus(key), 200);
  await page.getByRole("button", { name: `Revoke the key ending …${key.slice(-4)}` }).click();
  await page.waitForURL(account);
  assert.match((await page.locator(".notice").textContent()) ?? "", /is revoked/);
  await screenshots(page, "key-revoked");
  assert.equal(await petsStatus(key), 401);
  assert.equal(await petsStatus(rolled), 200);

  // Sign out ends the session: the old cookie, put back, is signed out.
  const [session] = (await context.cookies()).filter((cookie) => cookie.name === "ps_session");
  assert.ok(session);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${server.origin}/dashboard/signed-out`);
  assert.equal(await page.locator(".notice").textContent(), "You have signed out.");
  await screenshots(page, "signed-out");
  await context.addCookies([session]);
  await page.goto(account);
  assert.equal(new URL(page.url()).pathname, "/dashboard/sign-in");
  await context.close();
});

test("without JavaScript: the key is shown, the copy button hidden, revoking still asks", async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await signUp(page, server.origin, `no-script-${Date.now()}@example.com`);
  await page.getByRole("link", { name: "Create a key" }).click();
  await page.getByRole("button", { name: "Create the key" }).click();
  await page.waitForURL(`${server.origin}/dashboard/account`);
  const key = await page.getByTestId("new-key").inputValue();
  assert.match(key, /^ps_test_[0-9A-Za-z]{32}$/);
  assert.equal(await page.getByRole("button", { name: "Copy" }).isVisible(), false);

  await keyRow(page, key).getByRole("link", { name: "Revoke" }).click();
  await page.getByRole("button", { name: /^Revoke the key ending/ }).click();
  await page.waitForURL(`${server.origin}/dashboard/account`);
  assert.equal(await petsStatus(key), 401);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${server.origin}/dashboard/signed-out`);
  await context.close();
});

test("a read-only key that expires: refused form first, then made and used", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await signUp(page, server.origin, `read-only-${Date.now()}@example.com`);

  // The skip link is the first thing the keyboard reaches, and leads to the content.
  await page.keyboard.press("Tab");
  assert.equal(
    await page.evaluate(() => document.activeElement?.textContent?.trim()),
    "Skip to content",
  );
  const ring = await page.evaluate(() => {
    const style = getComputedStyle(document.activeElement as Element);
    return `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`;
  });
  assert.equal(ring, "solid 3px rgb(30, 58, 138)");
  await page.keyboard.press("Enter");
  assert.equal(await focused(page), "content");

  await page.goto(`${server.origin}/dashboard/keys/new`);
  await page.getByLabel("Read only").check();
  await page.getByLabel("7 days").check();
  await page.getByLabel("Allowed addresses (optional)").fill("10.0.0.1/33\n192.168.1.7/24");
  await submit(page, page.getByRole("button", { name: "Create the key" }));
  assert.equal(await focused(page), "ranges", "the focus is on the first field in error");
  const errors = await page.locator("#ranges-error li").allTextContents();
  assert.equal(errors.length, 2, errors.join(" | "));
  assert.match(errors[0] ?? "", /10\.0\.0\.1\/33/);
  assert.match(errors[1] ?? "", /did you mean 192\.168\.1\.0\/24\?/);
  assert.equal(
    await page.getByLabel("Read only").isChecked(),
    true,
    "the form comes back as posted",
  );
  await screenshots(page, "key-form-refused");

  await page.getByLabel("Allowed addresses (optional)").fill("");
  await page.getByRole("button", { name: "Create the key" }).click();
  await page.waitForURL(`${server.origin}/dashboard/account`);
  const key = await page.getByTestId("new-key").inputValue();
  const row = page.locator(`tr[data-key-last-four="${key.slice(-4)}"]`);
  assert.equal(await row.getByTestId("access").textContent(), "Read only");
  const expires = (await row.getByTestId("expires").textContent()) ?? "";
  const inAWeek = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
  assert.ok(expires.startsWith(inAWeek), expires);
  assert.equal(await row.getByTestId("last-used").textContent(), "Never");

  assert.equal(await petsStatus(key), 200);
  assert.equal(await petsStatus(key, "POST"), 403);
  await page.reload();
  const lastUsed = (await row.getByTestId("last-used").textContent()) ?? "";
  assert.match(lastUsed, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
  await screenshots(page, "account-keys");
  await context.close();
});

test("a refused sign-in keeps the email, puts the focus on the password, and a missing page says so", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.origin}/dashboard/sign-in`);
  await screenshots(page, "sign-in");
  await page.getByLabel("Email").fill(`nobody-${Date.now()}@example.com`);
  await page.getByLabel("Password").fill("not the password at all");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForSelector("#password-error");
  assert.equal(await focused(page), "password");
  await screenshots(page, "sign-in-refused");

  await signUp(page, server.origin, `missing-${Date.now()}@example.com`);
  const missing = await page.goto(`${server.origin}/dashboard/webhooks/424242`);
  assert.equal(missing?.status(), 404);
  await screenshots(page, "not-found");
  await context.close();
});
