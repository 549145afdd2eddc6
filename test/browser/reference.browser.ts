/**
 * The API reference in a real browser (headless Chromium) with every request
 * to another host refused, as on a machine with no network: /docs must render
 * the whole reference from this Worker alone, under its script-src 'self'.
 * Run with `npm run test:browser`; screenshots land in .screenshots/.
 */
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { after, before, test } from "node:test";
import { type Browser, chromium } from "playwright-core";
import { expectNoAxeViolations } from "./axe.ts";
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from "./chromium.ts";
import { startWorker, type WorkerServer } from "./worker-server.ts";

const SCREENSHOTS = path.resolve(import.meta.dirname, "../../.screenshots");

requireChromium();

let server: WorkerServer;
let browser: Browser;

before(async () => {
  server = await startWorker();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  await mkdir(SCREENSHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test("/docs renders every operation offline, with nothing refused by its CSP", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const elsewhere: string[] = [];
  const violations: string[] = [];
  await page.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === "127.0.0.1") return route.continue();
    elsewhere.push(url.href);
    return route.abort("internetdisconnected");
  });
  page.on("console", (message) => {
    if (message.type() === "error") violations.push(message.text());
  });

  const response = await page.goto(`${server.origin}/docs`);
  assert.equal(response?.status(), 200);
  assert.match(response?.headers()["content-security-policy"] ?? "", /script-src 'self'/);
  for (const name of ["List animals", "Add an animal", "Fetch one animal"]) {
    await page.getByText(name, { exact: false }).first().waitFor({ timeout: 30_000 });
  }
  await page.screenshot({ path: path.join(SCREENSHOTS, "reference-1280.png"), fullPage: false });

  assert.deepEqual(elsewhere, [], "the reference asked another host for something");
  assert.deepEqual(violations, [], "the console reported errors");

  const script = await page.locator("script[src^='/reference/']").getAttribute("src");
  const asset = await fetch(`${server.origin}${script}`);
  await asset.arrayBuffer();
  assert.equal(asset.status, 200);
  assert.equal(asset.headers.get("x-content-type-options"), "nosniff");
  assert.match(asset.headers.get("cache-control") ?? "", /max-age=31536000/);
  await page.close();
});

test("/docs without scripts links the document", async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${server.origin}/docs`);
  const link = page.getByRole("link", { name: "/v1/openapi.json" });
  assert.equal(await link.getAttribute("href"), "/v1/openapi.json");
  await context.close();
});

test("/ fits a 390 px phone, links the reference, the document and the dashboard, and runs nothing", async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const violations: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") violations.push(message.text());
  });
  const response = await page.goto(`${server.origin}/`);
  assert.equal(response?.status(), 200);
  for (const [name, href] of [
    ["API reference", "/docs"],
    ["OpenAPI document", "/v1/openapi.json"],
    ["Dashboard", "/dashboard"],
  ]) {
    const link = page.getByRole("link", { name });
    assert.equal(await link.getAttribute("href"), href);
    assert.ok(await link.isVisible(), `${name} is not visible`);
  }
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width} px wide on a 390 px screen`);
  assert.equal(await page.locator("script").count(), 0);
  await page.screenshot({ path: path.join(SCREENSHOTS, "front-page-390.png"), fullPage: true });
  assert.deepEqual(violations, [], "the console reported errors");
  await page.close();
});

for (const colorScheme of ["light", "dark"] as const) {
  test(`/docs in ${colorScheme} mode has no axe violation (WCAG 2 A and AA)`, async () => {
    // The page's CSP lets no injected script run; axe is a test's instrument, not the page's.
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      colorScheme,
      bypassCSP: true,
    });
    const page = await context.newPage();
    await page.goto(`${server.origin}/docs`);
    for (const name of ["List animals", "Add an animal"]) {
      await page.getByText(name, { exact: false }).first().waitFor({ timeout: 30_000 });
    }
    await page.getByRole("button", { name: /Copy/ }).first().waitFor({ state: "attached" });
    await expectNoAxeViolations(page, `/docs in ${colorScheme} mode`);
    await context.close();
  });
}
