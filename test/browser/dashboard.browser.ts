/**
 * The dashboard in a real browser (headless Chromium, JavaScript off):
 * sign up, create a key, use it, revoke it, sign out.
 * Run with `npm run test:browser`; screenshots land in .screenshots/.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { after, before, test } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { startWorker, type WorkerServer } from "./worker-server.ts";

const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOTS = path.resolve(import.meta.dirname, "../../.screenshots");

if (!existsSync(CHROMIUM)) {
  console.error(
    `Chromium is not installed at ${CHROMIUM}; the browser test cannot run.\n` +
      "Install it with:  sudo apt-get update && sudo apt-get install -y chromium",
  );
  process.exit(1);
}

let server: WorkerServer;
let browser: Browser;

before(async () => {
  server = await startWorker();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-quic",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  await mkdir(SCREENSHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function petsStatus(key: string): Promise<number> {
  const response = await fetch(`${server.origin}/v1/pets`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  await response.text();
  return response.status;
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `dashboard-${name}.png`), fullPage: true });
}

test("sign up, create a key, use it, revoke it, sign out", async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const email = `browser-${Date.now()}@example.com`;

  await page.goto(`${server.origin}/dashboard/sign-up`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel(/^Password/).fill("a long enough password");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(`${server.origin}/dashboard/account`);
  assert.equal(await page.getByTestId("plan").textContent(), "Free");
  await screenshot(page, "account-new");

  await page.getByRole("button", { name: "Create a key" }).click();
  const key = await page.getByTestId("new-key").inputValue();
  assert.match(key, /^ps_test_[0-9A-Za-z]{32}$/);
  await screenshot(page, "key-created");
  assert.equal(await petsStatus(key), 200);

  await page.goto(`${server.origin}/dashboard/account`);
  assert.equal(await page.getByTestId("new-key").count(), 0, "the key is shown only once");
  assert.match((await page.getByTestId("usage-day").textContent()) ?? "", /^1$/);
  const row = page.locator(`tr[data-key-last-four="${key.slice(-4)}"]`);
  await row.getByRole("button", { name: "Revoke" }).click();
  await page.waitForURL(/\/dashboard\/account\?revoked=/);
  assert.match((await page.locator(".notice").textContent()) ?? "", /is revoked/);
  await screenshot(page, "key-revoked");
  assert.equal(await petsStatus(key), 401);

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${server.origin}/dashboard/sign-in?signed-out=1`);
  await page.goto(`${server.origin}/dashboard/account`);
  assert.equal(new URL(page.url()).pathname, "/dashboard/sign-in");
  await context.close();
});
