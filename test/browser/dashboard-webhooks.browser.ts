/**
 * Webhook endpoints in the dashboard, in a real browser (headless Chromium),
 * against a local receiver: register one (its secret shown once), send a
 * test and see it delivered on the endpoint's page, retry a failed
 * delivery, pause and resume, change it, rotate its secret, recover missed
 * events, delete it. Every page is checked for sideways scrolling at 390 px
 * and photographed at 1280 and 390 px into .screenshots/.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { type ReceivedRequest, type Receiver, startReceiver } from "../receiver/receiver.ts";
import { CHROMIUM, CHROMIUM_ARGS, requireChromium } from "./chromium.ts";
import { focused, screenshotFolder, screenshots, signUp, submit } from "./dashboard-pages.ts";
import { startWorker, type WorkerServer } from "./worker-server.ts";

requireChromium();

let server: WorkerServer;
let receiver: Receiver;
let browser: Browser;

before(async () => {
  [server, receiver] = await Promise.all([startWorker(), startReceiver()]);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  await screenshotFolder();
});

after(async () => {
  await browser?.close();
  await receiver?.close();
  await server?.stop();
});

async function received(name: string): Promise<ReceivedRequest[]> {
  const response = await fetch(`${receiver.url}/received/${name}`);
  return (await response.json()) as ReceivedRequest[];
}

/** Reloads the page until `ready` holds, for at most ten seconds. */
async function reloadUntil(page: Page, what: string, ready: () => Promise<boolean>) {
  const deadline = Date.now() + 10_000;
  while (!(await ready())) {
    assert.ok(Date.now() < deadline, `not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await page.reload();
  }
}

async function register(page: Page, url: string, types: string[]): Promise<string> {
  await page.goto(`${server.origin}/dashboard/account`);
  await page.getByRole("link", { name: "Register an endpoint" }).click();
  await page.getByLabel("URL", { exact: true }).fill(url);
  for (const type of types) await page.getByLabel(type, { exact: true }).check();
  await submit(page, page.getByRole("button", { name: "Register the endpoint" }));
  await page.waitForURL(/\/dashboard\/webhooks\/\d+$/);
  return page.url();
}

const notice = (page: Page) => page.locator(".notice").first().textContent();

test("register, test, retry, pause, change, rotate, recover and delete an endpoint", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await signUp(page, server.origin, `webhooks-${Date.now()}@example.com`);
  await screenshots(page, "account-no-endpoints");

  // A refused registration comes back with the focus on the first field in error.
  await page.getByRole("link", { name: "Register an endpoint" }).click();
  await screenshots(page, "webhook-form");
  await page.getByLabel("URL", { exact: true }).fill("https://localhost/hooks");
  await submit(page, page.getByRole("button", { name: "Register the endpoint" }));
  assert.equal(await focused(page), "url");
  assert.match((await page.locator("#url-error").textContent()) ?? "", /public host/);
  assert.match((await page.locator("#types-error").textContent()) ?? "", /at least one/);
  await screenshots(page, "webhook-form-refused");

  const name = `healthy-${Date.now()}`;
  const endpointPage = await register(page, `${receiver.url}/ok/${name}`, ["pet.created"]);
  assert.match((await notice(page)) ?? "", /is registered/);
  const secret = await page.getByTestId("new-secret").inputValue();
  assert.match(secret, /^whsec_/);
  await screenshots(page, "webhook-registered");
  await page.reload();
  assert.equal(await page.getByTestId("new-secret").count(), 0, "the secret is shown once");

  await submit(page, page.getByRole("button", { name: "Send test" }));
  assert.match((await notice(page)) ?? "", /A test event \(evt_\w+\) is on its way/);
  await reloadUntil(
    page,
    "the test delivered",
    async () => (await page.locator('tr[data-delivery-status="succeeded"]').count()) === 1,
  );
  const [test] = await received(name);
  assert.equal(JSON.parse(test?.body ?? "{}").type, "webhook.test");
  assert.match((await page.locator("tr[data-delivery-id]").textContent()) ?? "", /HTTP 200/);
  await screenshots(page, "webhook-delivered");

  // Pause and resume, each with its notice.
  await submit(page, page.getByRole("button", { name: "Pause" }));
  assert.match((await notice(page)) ?? "", /is paused/);
  assert.equal(await page.getByTestId("webhook-status").textContent(), "Paused");
  await submit(page, page.getByRole("button", { name: "Resume" }));
  assert.match((await notice(page)) ?? "", /is enabled again/);

  // Change the URL and kinds.
  await page.getByRole("link", { name: "Change URL or events" }).click();
  await page.getByLabel("Every animal event (pet.*)").check();
  await page.getByLabel("pet.created", { exact: true }).uncheck();
  await screenshots(page, "webhook-edit");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.waitForURL(endpointPage);
  assert.match((await notice(page)) ?? "", /now receives pet\.\*/);

  await submit(page, page.getByRole("button", { name: "Rotate secret" }));
  assert.match((await notice(page)) ?? "", /has a new signing secret/);
  const rotated = await page.getByTestId("new-secret").inputValue();
  assert.match(rotated, /^whsec_/);
  assert.notEqual(rotated, secret);

  // Recover: a time in the future is refused, with the focus on the field.
  await page.getByLabel("Since (UTC)").fill("2999-01-01T00:00");
  await submit(page, page.getByRole("button", { name: "Recover" }));
  assert.equal(await focused(page), "since");
  assert.match((await page.locator("#since-error").textContent()) ?? "", /in the past/);
  await screenshots(page, "webhook-recover-refused");
  await page.getByLabel("Since (UTC)").fill("2020-01-01T00:00");
  await submit(page, page.getByRole("button", { name: "Recover" }));
  assert.match((await notice(page)) ?? "", /missed none|on (its|their) way/);

  // Delete asks first.
  await page.getByRole("link", { name: "Delete" }).click();
  await page.waitForURL(/\/delete$/);
  await screenshots(page, "webhook-delete-confirm");
  await page.getByRole("button", { name: "Delete the endpoint" }).click();
  await page.waitForURL(`${server.origin}/dashboard/account`);
  assert.match((await notice(page)) ?? "", /is deleted/);
  await context.close();
});

test("a failed delivery is retried from the endpoint's page", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await signUp(page, server.origin, `retry-${Date.now()}@example.com`);
  const name = `failing-${Date.now()}`;
  await register(page, `${receiver.url}/fail/${name}`, ["order.placed"]);
  await submit(page, page.getByRole("button", { name: "Send test" }));
  await reloadUntil(
    page,
    "the test failed",
    async () => (await page.locator('tr[data-delivery-status="failed"]').count()) === 1,
  );
  await screenshots(page, "webhook-failed");

  await submit(
    page,
    page.locator('tr[data-delivery-status="failed"]').getByRole("button", { name: "Retry" }),
  );
  assert.match((await notice(page)) ?? "", /is being sent to the endpoint again/);
  await reloadUntil(page, "the retry's attempt", async () => {
    const attempts = await page.locator("tr[data-delivery-id] ol.attempts li").count();
    return attempts === 2;
  });
  assert.equal((await received(name)).length, 2);
  await screenshots(page, "webhook-retried");

  await page.goto(`${server.origin}/dashboard/account`);
  await screenshots(page, "account-endpoints");
  await context.close();
});
