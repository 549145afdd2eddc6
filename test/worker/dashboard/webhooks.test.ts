import { describe, expect, it } from "vitest";
import { createPet } from "../support/assertions.ts";
import { DashboardBrowser, type Page } from "../support/dashboard-browser.ts";
import { api } from "../support/request.ts";
import {
  deliveriesOf,
  eventually,
  receivedAtLeast,
  receiverUrl,
  registerWebhook,
  settledDeliveries,
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

  it("lists each endpoint with its status and latest delivery, and never its secret", async () => {
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
    const gone = await registerWebhook(key, receiverUrl("gone", uniqueName("gone")), [
      "pet.created",
    ]);
    await createPet(key, { name: "Dashboard", categoryId: 5 });
    await settledDeliveries(key, healthy.id, 1);
    await settledDeliveries(key, gone.id, 1);
    await eventually(`a first attempt at endpoint ${failing.id}`, async () =>
      (await deliveriesOf(key, failing.id)).some((delivery) => delivery.attempts.length > 0)
        ? true
        : undefined,
    );

    const page = await browser.get("/dashboard/account");
    expect(page.status).toBe(200);
    expect(text(row(page, quiet.id))).toMatch(
      new RegExp(
        `^${quiet.url} order.cancelled \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC Enabled None yet Pause Send test$`,
      ),
    );
    expect(row(page, quiet.id)).toContain('data-delivery-status="none"');
    expect(text(row(page, healthy.id))).toMatch(
      /pet\.created .* Enabled Delivered \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(HTTP 200\) Pause Send test$/,
    );
    expect(row(page, healthy.id)).toContain('data-delivery-status="succeeded"');
    expect(text(row(page, failing.id))).toMatch(
      /pet\.\* .* (Failing since .* \(HTTP 500\); retrying|Failed .* \(HTTP 500\); no more retries) Pause Send test$/,
    );
    expect(text(row(page, gone.id))).toMatch(
      /Disabled: The endpoint answered 410 Gone\. Failed .* \(HTTP 410\); no more retries Resume Send test$/,
    );
    for (const endpoint of [quiet, healthy, failing, gone]) {
      expect(page.html).not.toContain(endpoint.secret.slice("whsec_".length));
    }

    const deleted = await api(`/v1/webhooks/${failing.id}`, { method: "DELETE", key });
    expect(deleted.status).toBe(204);
    await deleted.arrayBuffer();
    expect((await browser.get("/dashboard/account")).html).not.toContain(
      `data-webhook-id="${failing.id}"`,
    );
  });

  it("pauses, resumes and tests an endpoint with forms that come back to the page", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const { key } = await browser.createKey();
    const name = uniqueName("operated");
    const endpoint = await registerWebhook(key, receiverUrl("ok", name), ["order.cancelled"]);
    await browser.get("/dashboard/account");

    const paused = await browser.post(`/dashboard/webhooks/${endpoint.id}/pause`);
    expect(paused.status).toBe(303);
    expect(paused.location).toBe(`/dashboard/webhooks/${endpoint.id}`);
    let page = await browser.get("/dashboard/account");
    expect(text(row(page, endpoint.id))).toMatch(/Paused None yet Resume Send test$/);
    const listed = await api("/v1/webhooks", { key });
    expect(((await listed.json()) as { status: string }[])[0]?.status).toBe("disabled");

    expect((await browser.post(`/dashboard/webhooks/${endpoint.id}/resume`)).status).toBe(303);
    expect((await browser.post(`/dashboard/webhooks/${endpoint.id}/test`)).status).toBe(303);
    const [request] = await receivedAtLeast(name, 1);
    expect(JSON.parse(request?.body ?? "{}")).toMatchObject({
      type: "webhook.test",
      data: { webhookId: endpoint.id },
    });
    await settledDeliveries(key, endpoint.id, 1);
    page = await browser.get("/dashboard/account");
    expect(text(row(page, endpoint.id))).toMatch(
      /Enabled Delivered .* \(HTTP 200\) Pause Send test$/,
    );

    // Without the form's token, or for another account's endpoint, nothing happens.
    const forged = await browser.post(`/dashboard/webhooks/${endpoint.id}/pause`, { csrf: "x" });
    expect(forged.status).toBe(403);
    const stranger = new DashboardBrowser();
    await stranger.newAccount();
    expect((await stranger.post(`/dashboard/webhooks/${endpoint.id}/pause`)).status).toBe(404);
    const after = await api("/v1/webhooks", { key });
    expect(((await after.json()) as { status: string }[])[0]?.status).toBe("enabled");
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
