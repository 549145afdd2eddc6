import { describe, expect, it } from "vitest";
import { autofocused, DashboardBrowser, type Page } from "../support/dashboard-browser.ts";
import { api } from "../support/request.ts";
import {
  type DeliveryBody,
  deliveriesOf,
  eventually,
  receivedAtLeast,
  receiverUrl,
  uniqueName,
  type WebhookBody,
} from "../support/webhooks.ts";

const SECRET_IN_TEXT = /whsec_[A-Za-z0-9+/=]+/g;

const noticesOf = (page: Page) =>
  [...page.html.matchAll(/<p class="notice">([^<]*)<\/p>/g)].map((match) => match[1]);

/** Registers an endpoint through the form; the page its 303 leads to, shown once with the secret. */
async function register(browser: DashboardBrowser, url: string, types = ["pet.created"]) {
  await browser.get("/dashboard/webhooks/new");
  const posted = await browser.post("/dashboard/webhooks", { url, types });
  expect(posted.status, posted.html).toBe(303);
  const id = Number(/^\/dashboard\/webhooks\/(\d+)$/.exec(posted.location ?? "")?.[1]);
  const page = await browser.get(posted.location ?? "");
  return { id, page };
}

/** A new account with a full-access key for the API beside the dashboard. */
async function owner() {
  const browser = new DashboardBrowser();
  await browser.newAccount();
  await browser.post("/dashboard/keys");
  const key = /ps_test_[0-9A-Za-z]{32}/.exec((await browser.get("/dashboard/account")).html)?.[0];
  return { browser, key: key ?? "" };
}

async function listed(key: string): Promise<WebhookBody[]> {
  return (await (await api("/v1/webhooks", { key })).json()) as WebhookBody[];
}

describe("endpoint pages", () => {
  it("register one: 303 to its page, which shows its secret once and what it is", async () => {
    const { browser, key } = await owner();
    const url = receiverUrl("ok", uniqueName("registered"));
    const { id, page } = await register(browser, url, ["pet.*", "order.completed"]);
    const [secret, ...others] = page.html.match(SECRET_IN_TEXT) ?? [];
    expect(others).toEqual([]);
    expect(noticesOf(page)[0]).toBe(
      `The endpoint ${url} is registered: it receives the events it asked for from now on.`,
    );
    expect(page.html).toContain("pet.*, order.completed");
    const [endpoint] = await listed(key);
    expect(endpoint).toMatchObject({ id, url, types: ["pet.*", "order.completed"] });

    const again = await browser.get(`/dashboard/webhooks/${id}`);
    expect(again.html).not.toContain(secret);
    expect(noticesOf(again)).toEqual([]);
    const account = await browser.get("/dashboard/account");
    expect(account.html).toContain(`href="/dashboard/webhooks/${id}"`);
  });

  it("change its URL and kinds, pause it, rotate its secret, each with a notice", async () => {
    const { browser, key } = await owner();
    const { id, page } = await register(browser, receiverUrl("ok", uniqueName("changed")));
    const first = page.html.match(SECRET_IN_TEXT)?.[0];
    const edit = await browser.get(`/dashboard/webhooks/${id}/edit`);
    expect(edit.html).toMatch(/id="types-pet_created"[^>]*checked/);
    const url = receiverUrl("ok", uniqueName("moved"));
    const changed = await browser.post(`/dashboard/webhooks/${id}`, {
      url,
      types: ["category.*", "order.placed"],
    });
    expect(changed.status).toBe(303);
    expect(changed.location).toBe(`/dashboard/webhooks/${id}`);
    expect(noticesOf(await browser.get(`/dashboard/webhooks/${id}`))).toEqual([
      `The endpoint now receives category.*, order.placed at ${url}, from the next event on.`,
    ]);
    expect((await listed(key))[0]).toMatchObject({ url, types: ["category.*", "order.placed"] });

    expect((await browser.post(`/dashboard/webhooks/${id}/pause`)).status).toBe(303);
    const paused = await browser.get(`/dashboard/webhooks/${id}`);
    expect(noticesOf(paused)[0]).toMatch(/is paused: no attempts are made/);
    expect(paused.html).toContain('data-testid="webhook-status">Paused<');

    const rotated = await browser.post(`/dashboard/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(303);
    const shown = await browser.get(`/dashboard/webhooks/${id}`);
    const second = shown.html.match(SECRET_IN_TEXT)?.[0];
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect(noticesOf(shown)[0]).toMatch(/has a new signing secret/);
    expect((await browser.get(`/dashboard/webhooks/${id}`)).html).not.toContain(second);
  });

  it("send a test, retry a failed delivery, recover missed events, with their attempts", async () => {
    const { browser, key } = await owner();
    const name = uniqueName("failing");
    const { id } = await register(browser, receiverUrl("fail", name));
    expect((await browser.post(`/dashboard/webhooks/${id}/test`)).status).toBe(303);
    expect(noticesOf(await browser.get(`/dashboard/webhooks/${id}`))[0]).toMatch(
      /^A test event \(evt_[0-9a-z]{26}\) is on its way to /,
    );
    const failed = await eventually("the test failed", async () => {
      const [delivery] = await deliveriesOf(key, id);
      return delivery?.status === "failed" ? delivery : undefined;
    });
    const page = await browser.get(`/dashboard/webhooks/${id}`);
    expect(page.html).toContain(`data-delivery-id="${failed.id}" data-delivery-status="failed"`);
    expect(page.html).toMatch(/<li>\d{4}-\d\d-\d\d \d\d:\d\d UTC: HTTP 500<\/li>/);

    const retried = await browser.post(`/dashboard/webhooks/${id}/deliveries/${failed.id}/retry`);
    expect(retried.status).toBe(303);
    expect(noticesOf(await browser.get(`/dashboard/webhooks/${id}`))[0]).toBe(
      `The event ${failed.eventId} is being sent to the endpoint again now; the new attempt is listed with its delivery below.`,
    );
    await receivedAtLeast(name, 2);
    await eventually("the retry's attempt", async () => {
      const [delivery] = (await deliveriesOf(key, id)) as DeliveryBody[];
      return delivery?.attempts.length === 2 ? true : undefined;
    });
    expect((await browser.post(`/dashboard/webhooks/${id}/deliveries/999999/retry`)).status).toBe(
      404,
    );

    const recovered = await browser.post(`/dashboard/webhooks/${id}/recover`, {
      since: "2020-01-01T00:00",
    });
    expect(recovered.status).toBe(303);
    expect(noticesOf(await browser.get(`/dashboard/webhooks/${id}`))[0]).toMatch(
      /^No events since 2020-01-01 00:00 UTC needed sending again/,
    );
  });

  it("delete it after asking, ending on the account page with a notice", async () => {
    const { browser, key } = await owner();
    const url = receiverUrl("ok", uniqueName("deleted"));
    const { id } = await register(browser, url);
    const confirm = await browser.get(`/dashboard/webhooks/${id}/delete`);
    expect(confirm.html).toContain("Delete this endpoint?");
    expect(confirm.html).toContain(
      `<form method="post" action="/dashboard/webhooks/${id}/delete">`,
    );
    expect(await listed(key)).toHaveLength(1);
    const deleted = await browser.post(`/dashboard/webhooks/${id}/delete`);
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe("/dashboard/account");
    expect(noticesOf(await browser.get("/dashboard/account"))).toEqual([
      `The endpoint ${url} is deleted: it receives no more events.`,
    ]);
    expect(await listed(key)).toEqual([]);
    expect((await browser.get(`/dashboard/webhooks/${id}`)).status).toBe(404);
  });
});

describe("endpoint forms refuse", () => {
  it("a URL the API refuses and no kinds, as posted, the focus on the URL", async () => {
    const { browser, key } = await owner();
    await browser.get("/dashboard/webhooks/new");
    const refused = await browser.post("/dashboard/webhooks", { url: "https://10.0.0.1/hook" });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("This URL cannot receive events");
    expect(refused.html).toContain("Choose at least one kind of event.");
    expect(refused.html).toContain('value="https://10.0.0.1/hook"');
    expect(autofocused(refused.html)).toBe("url");

    const tooMany = await browser.post("/dashboard/webhooks", {
      url: receiverUrl("ok", "x"),
      types: [
        "pet.created",
        "pet.updated",
        "pet.deleted",
        "pet.status_changed",
        "category.*",
      ].concat(["order.placed", "order.completed", "order.cancelled"]),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.html).toContain("Choose at most 7");
    expect(autofocused(tooMany.html)).toBe("types-pet__");
    expect(await listed(key)).toEqual([]);
  });

  it("a recovery from the future, on the endpoint's page with the focus on the time", async () => {
    const { browser } = await owner();
    const { id } = await register(browser, receiverUrl("ok", uniqueName("recovering")));
    const refused = await browser.post(`/dashboard/webhooks/${id}/recover`, {
      since: "2999-01-01T00:00",
    });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("Choose a time in the past");
    expect(autofocused(refused.html)).toBe("since");
    const garbled = await browser.post(`/dashboard/webhooks/${id}/recover`, { since: "yesterday" });
    expect(garbled.status).toBe(400);
    expect(garbled.html).toContain("Enter a date and time (UTC)");
  });

  it("more than 30 sends a minute from one account, with Retry-After", async () => {
    const { browser } = await owner();
    const { id } = await register(browser, receiverUrl("ok", uniqueName("busy")));
    const retry = `/dashboard/webhooks/${id}/deliveries/999999/retry`;
    for (let i = 0; i < 30; i += 1) expect((await browser.post(retry)).status).toBe(404);
    const refused = await browser.post(`/dashboard/webhooks/${id}/test`);
    expect(refused.status).toBe(429);
    expect(Number(refused.response.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(refused.html).toContain("Wait");
  });

  it("every post without the form's token", async () => {
    const { browser, key } = await owner();
    const { id } = await register(browser, receiverUrl("ok", uniqueName("guarded")));
    const posts = [
      "/dashboard/webhooks",
      `/dashboard/webhooks/${id}`,
      `/dashboard/webhooks/${id}/pause`,
      `/dashboard/webhooks/${id}/test`,
      `/dashboard/webhooks/${id}/rotate-secret`,
      `/dashboard/webhooks/${id}/recover`,
      `/dashboard/webhooks/${id}/delete`,
      `/dashboard/webhooks/${id}/deliveries/1/retry`,
    ];
    for (const path of posts) {
      const page = await browser.post(path, { csrf: "forged", url: receiverUrl("ok", "y") });
      expect(page.status, path).toBe(403);
    }
    expect(await listed(key)).toMatchObject([{ id, status: "enabled" }]);
  });

  it("another account's endpoint: every page and post is not found, and nothing changes", async () => {
    const { browser } = await owner();
    const { id } = await register(browser, receiverUrl("ok", uniqueName("private")));
    const stranger = new DashboardBrowser();
    await stranger.newAccount();
    for (const path of ["", "/edit", "/delete"]) {
      expect((await stranger.get(`/dashboard/webhooks/${id}${path}`)).status, path).toBe(404);
    }
    for (const path of [
      "",
      "/pause",
      "/test",
      "/rotate-secret",
      "/delete",
      "/deliveries/1/retry",
    ]) {
      const page = await stranger.post(`/dashboard/webhooks/${id}${path}`, {
        url: receiverUrl("ok", "z"),
        types: "pet.*",
        since: "2020-01-01T00:00",
      });
      expect(page.status, path).toBe(404);
      expect(page.html).not.toContain("whsec_");
    }
    expect((await stranger.post(`/dashboard/webhooks/${id}/recover`, { since: "x" })).status).toBe(
      404,
    );
    const mine = await browser.get(`/dashboard/webhooks/${id}`);
    expect(mine.html).toContain('data-testid="webhook-status">Enabled<');
    expect(mine.html).toContain("No deliveries yet.");
  });
});
