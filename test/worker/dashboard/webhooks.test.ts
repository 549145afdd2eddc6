import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createPet } from "../support/assertions.ts";
import { DashboardBrowser, type Page } from "../support/dashboard-browser.ts";
import { api } from "../support/request.ts";
import {
  deliveriesOf,
  eventually,
  receiverUrl,
  registerWebhook,
  uniqueName,
} from "../support/webhooks.ts";

/** The row of the endpoint with this id, from its `<tr>` to its `</tr>`. */
function row(page: Page, webhookId: number): string {
  const match = new RegExp(`<tr data-webhook-id="${webhookId}">[\\s\\S]*?</tr>`).exec(page.html);
  expect(match, `no row for endpoint ${webhookId}`).not.toBeNull();
  return match?.[0] ?? "";
}

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();

describe("webhook endpoints on the account page", () => {
  it("says when there are none", async () => {
    const browser = new DashboardBrowser();
    const page = await browser.newAccount();
    expect(page.html).toContain("You have no webhook endpoints.");
  });

  it("lists each endpoint with its latest delivery's outcome, and never its secret", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const { key } = await browser.createKey();
    const quiet = await registerWebhook(key, receiverUrl("ok", uniqueName("quiet")), [
      "order.cancelled",
    ]);
    const healthy = await registerWebhook(key, receiverUrl("ok", uniqueName("healthy")), [
      "pet.created",
    ]);
    const failing = await registerWebhook(key, receiverUrl("fail", uniqueName("failing")), [
      "pet.*",
    ]);
    await createPet(key, { name: "Dashboard", categoryId: 26 });
    for (const endpoint of [healthy, failing]) {
      await eventually(`a first attempt at endpoint ${endpoint.id}`, async () =>
        (await deliveriesOf(key, endpoint.id)).length > 0 ? true : undefined,
      );
    }

    const page = await browser.get("/dashboard/account");
    expect(page.status).toBe(200);
    expect(text(row(page, quiet.id))).toMatch(
      new RegExp(`^${quiet.url} order.cancelled \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC None yet$`),
    );
    expect(row(page, quiet.id)).toContain('data-outcome="none"');
    expect(text(row(page, healthy.id))).toMatch(
      /pet\.created .* Delivered \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(HTTP 200\)$/,
    );
    expect(row(page, healthy.id)).toContain('data-outcome="succeeded"');
    expect(text(row(page, failing.id))).toMatch(
      /pet\.\* .* Failing since \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(HTTP 500\); retrying$/,
    );
    expect(row(page, failing.id)).toContain('data-outcome="retrying"');
    for (const endpoint of [quiet, healthy, failing]) {
      expect(page.html).not.toContain(endpoint.secret.slice("whsec_".length));
    }

    // A delivery that spent its schedule, as the consumer records its last attempt.
    const gaveUp = await registerWebhook(key, receiverUrl("ok", uniqueName("gave-up")), [
      "order.placed",
    ]);
    await env.DB.prepare(
      `INSERT INTO delivery_attempts (webhook_id, event_id, attempt, attempted_at, outcome, response_status, error, next_retry_at)
       VALUES (?, 'evt_0000000000000000000000000a', 7, ?, 'failed', NULL, 'No response within 10 s.', NULL)`,
    )
      .bind(gaveUp.id, Date.parse("2031-01-02T03:04:05Z"))
      .run();
    expect(text(row(await browser.get("/dashboard/account"), gaveUp.id))).toMatch(
      /Failed 2031-01-02 03:04 UTC \(No response within 10 s\.\); no more retries$/,
    );

    const deleted = await api(`/v1/webhooks/${failing.id}`, { method: "DELETE", key });
    expect(deleted.status).toBe(204);
    await deleted.arrayBuffer();
    expect((await browser.get("/dashboard/account")).html).not.toContain(
      `data-webhook-id="${failing.id}"`,
    );
  });

  it("shows another account's endpoints to nobody else", async () => {
    const owner = new DashboardBrowser();
    await owner.newAccount();
    const { key } = await owner.createKey();
    const endpoint = await registerWebhook(key, receiverUrl("ok", uniqueName("private")), [
      "pet.*",
    ]);
    const stranger = new DashboardBrowser();
    const page = await stranger.newAccount();
    expect(page.html).not.toContain(endpoint.url);
    expect(page.html).toContain("You have no webhook endpoints.");
  });
});
