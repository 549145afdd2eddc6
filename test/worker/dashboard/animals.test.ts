import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { DeliveryMessage } from "../../../src/outbox/outbox.queries.ts";
import { addAnimal, addedAnimal, animalIdIn, hiddenField } from "../support/dashboard-animals.ts";
import { autofocused, DashboardBrowser } from "../support/dashboard-browser.ts";
import { recordingQueue } from "../support/faulty-bindings.ts";
import { place } from "../support/orders.ts";
import { api, ORIGIN } from "../support/request.ts";
import { receiverUrl, registerWebhook, uniqueName } from "../support/webhooks.ts";

async function signedIn(): Promise<DashboardBrowser> {
  const browser = new DashboardBrowser();
  await browser.newAccount();
  return browser;
}

async function animalsNamed(name: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM pets WHERE name = ?")
    .bind(name)
    .first<{ n: number }>();
  return row?.n ?? -1;
}

describe("adding an animal", () => {
  it("makes it through the API's change and leads to its page with a notice", async () => {
    const browser = await signedIn();
    const name = uniqueName("Added");
    const { page } = await addAnimal(browser, { name, categoryId: "2", status: "pending" });
    expect(page.status, page.html).toBe(303);
    const id = animalIdIn(page.location);
    const shown = await browser.get(`/dashboard/animals/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain(`${name} is added`);
    expect(shown.html).toContain("Pending");
    const res = await api(`/v1/pets?id=${id}`, { key: (await browser.createKey()).key });
    expect(await res.json()).toMatchObject([{ id, name, categoryId: 2, status: "pending" }]);
  });

  it("a double submit of one form makes one animal, and both lead to it", async () => {
    const browser = await signedIn();
    const name = uniqueName("Once");
    const { page: first, formKey } = await addAnimal(browser, { name, categoryId: "3" });
    const again = await browser.post("/dashboard/animals", { formKey, name, categoryId: "3" });
    expect(first.status).toBe(303);
    expect(again.status).toBe(303);
    expect(again.location).toBe(first.location);
    expect(await animalsNamed(name)).toBe(1);
  });

  it("the same form sent concurrently makes one animal", async () => {
    const browser = await signedIn();
    const name = uniqueName("Racing");
    const form = await browser.get("/dashboard/animals/new");
    const formKey = hiddenField(form.html, "formKey");
    const pages = await Promise.all(
      [0, 1, 2].map(() => browser.post("/dashboard/animals", { formKey, name, categoryId: "4" })),
    );
    expect(pages.map((page) => page.status)).toEqual([303, 303, 303]);
    expect(new Set(pages.map((page) => page.location)).size).toBe(1);
    expect(await animalsNamed(name)).toBe(1);
  });

  it("a form's token never replays an API request with the same Idempotency-Key", async () => {
    const browser = await signedIn();
    const { key } = await browser.createKey();
    const name = uniqueName("Spaces");
    const { page, formKey } = await addAnimal(browser, { name, categoryId: "1" });
    expect(page.status).toBe(303);
    const res = await api("/v1/pets", {
      method: "POST",
      key,
      json: { name, categoryId: 1 },
      headers: { "Idempotency-Key": formKey },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
    await res.text();
    expect(await animalsNamed(name)).toBe(2);
  });

  it("refuses fields the API refuses, each with its error, the focus on the first", async () => {
    const browser = await signedIn();
    const { page } = await addAnimal(browser, { name: "   ", categoryId: "x", status: "lost" });
    expect(page.status).toBe(400);
    expect(page.html).toContain('id="name-error"');
    expect(page.html).toContain('id="categoryId-error"');
    expect(page.html).toContain('id="status-error"');
    expect(autofocused(page.html)).toBe("name");
    const unknown = await addAnimal(browser, { name: "Nowhere", categoryId: "999999" });
    expect(unknown.page.status).toBe(422);
    expect(autofocused(unknown.page.html)).toBe("categoryId");
  });

  it("sends the change's events at once, as after an API write", async () => {
    const browser = await signedIn();
    const { key } = await browser.createKey();
    await registerWebhook(key, receiverUrl("ok", uniqueName("backoffice")), ["pet.*"]);
    const form = await browser.get("/dashboard/animals/new");
    const sent: DeliveryMessage[] = [];
    const body = new URLSearchParams({
      csrf: browser.csrf,
      formKey: hiddenField(form.html, "formKey"),
      name: uniqueName("Heard"),
      categoryId: "5",
    });
    const page = await browser.request("/dashboard/animals", {
      method: "POST",
      body,
      headers: { Origin: ORIGIN },
      bindings: { DELIVERIES: recordingQueue(sent) as Queue },
    });
    expect(page.status).toBe(303);
    const id = animalIdIn(page.location);
    const { results } = await env.DB.prepare(
      "SELECT id, dispatched_at FROM events WHERE type = 'pet.created' AND json_extract(data, '$.id') = ?",
    )
      .bind(id)
      .all<{ id: string; dispatched_at: number | null }>();
    expect(results).toHaveLength(1);
    expect(results[0]?.dispatched_at).not.toBeNull();
    expect(sent.flatMap((message) => message.eventIds)).toContain(results[0]?.id);
  });
});

describe("the rules every form keeps", () => {
  it("a post without the form's CSRF token changes nothing", async () => {
    const browser = await signedIn();
    const name = uniqueName("Forged");
    const form = await browser.get("/dashboard/animals/new");
    const page = await browser.post("/dashboard/animals", {
      csrf: "forged",
      formKey: hiddenField(form.html, "formKey"),
      name,
      categoryId: "1",
    });
    expect(page.status).toBe(403);
    expect(await animalsNamed(name)).toBe(0);
  });

  it("a form body the server cannot parse gets a 400 page", async () => {
    const browser = await signedIn();
    const id = await addedAnimal(browser);
    for (const path of ["/dashboard/animals", `/dashboard/animals/${id}/photos`]) {
      const page = await browser.request(path, {
        method: "POST",
        body: "--xyz\r\nContent-Disposition: form-data\r\n\r\nno name, no end",
        headers: { Origin: ORIGIN, "Content-Type": "multipart/form-data; boundary=xyz" },
      });
      expect(page.status, path).toBe(400);
      expect(page.html).toContain("That form arrived incomplete or malformed.");
    }
  });

  it("another account's animal is not found, on every page and post", async () => {
    const owner = await signedIn();
    const id = await addedAnimal(owner, { name: "Theirs" });
    const other = await signedIn();
    for (const path of ["", "/edit", "/delete"]) {
      const page = await other.get(`/dashboard/animals/${id}${path}`);
      expect(page.status, path).toBe(404);
    }
    const edit = await owner.get(`/dashboard/animals/${id}/edit`);
    const etag = hiddenField(edit.html, "etag");
    await other.get("/dashboard/animals");
    const posted = await other.post(`/dashboard/animals/${id}`, {
      etag,
      name: "Stolen",
      categoryId: "1",
      status: "sold",
    });
    expect(posted.status).toBe(404);
    expect((await other.post(`/dashboard/animals/${id}/delete`, { etag })).status).toBe(404);
    expect(await animalsNamed("Stolen")).toBe(0);
    const list = await other.get("/dashboard/animals");
    expect(list.html).not.toContain(`/dashboard/animals/${id}"`);
  });
});

describe("editing an animal", () => {
  it("saves from the form drawn from its current version", async () => {
    const browser = await signedIn();
    const id = await addedAnimal(browser, { name: "Before" });
    const edit = await browser.get(`/dashboard/animals/${id}/edit`);
    expect(hiddenField(edit.html, "etag")).toBe('"1"');
    const saved = await browser.post(`/dashboard/animals/${id}`, {
      etag: '"1"',
      name: "After",
      categoryId: "2",
      status: "sold",
    });
    expect(saved.status, saved.html).toBe(303);
    const page = await browser.get(`/dashboard/animals/${id}`);
    expect(page.html).toContain("After is saved.");
    expect(page.html).toContain("Adopted");
  });

  it("refuses an edit from a stale page and shows the current values", async () => {
    const browser = await signedIn();
    const id = await addedAnimal(browser, { name: "Original" });
    const stale = await browser.get(`/dashboard/animals/${id}/edit`);
    const etag = hiddenField(stale.html, "etag");
    const fields = { etag, categoryId: "1", status: "available" };
    expect(
      (await browser.post(`/dashboard/animals/${id}`, { ...fields, name: "First" })).status,
    ).toBe(303);
    const refused = await browser.post(`/dashboard/animals/${id}`, { ...fields, name: "Second" });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain("Someone changed this animal after you opened this form");
    expect(refused.html).toContain('value="First"');
    expect(hiddenField(refused.html, "etag")).toBe('"2"');
    expect(await animalsNamed("Second")).toBe(0);
  });

  it("a double submit of an edit saves once and leads to the animal both times", async () => {
    const browser = await signedIn();
    const id = await addedAnimal(browser, { name: "Twice" });
    const fields = { etag: '"1"', name: "Twice saved", categoryId: "1", status: "pending" };
    const first = await browser.post(`/dashboard/animals/${id}`, fields);
    const second = await browser.post(`/dashboard/animals/${id}`, fields);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.location).toBe(`/dashboard/animals/${id}`);
    const page = await browser.get(`/dashboard/animals/${id}`);
    expect(page.html).toContain("(version <code>&quot;2&quot;</code>)");
  });

  it("refuses a status change while an order is placed, naming the order", async () => {
    const browser = await signedIn();
    const id = await addedAnimal(browser, { name: "Spoken for" });
    const { key } = await browser.createKey();
    const res = await place(key, id);
    const order = (await res.json()) as { id: number };
    const edit = await browser.get(`/dashboard/animals/${id}/edit`);
    const refused = await browser.post(`/dashboard/animals/${id}`, {
      etag: hiddenField(edit.html, "etag"),
      name: "Spoken for",
      categoryId: "1",
      status: "available",
    });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain(`Order ${order.id} is placed for this animal`);
    expect(autofocused(refused.html)).toBe("status");
    const page = await browser.get(`/dashboard/animals/${id}`);
    expect(page.html).toContain(`Order ${order.id} is placed`);
  });
});

describe("deleting an animal", () => {
  it("asks first, then deletes it and lists it no more", async () => {
    const browser = await signedIn();
    const id = await addedAnimal(browser, { name: "Leaving" });
    const confirm = await browser.get(`/dashboard/animals/${id}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain("Delete the animal");
    const deleted = await browser.post(`/dashboard/animals/${id}/delete`, {
      etag: hiddenField(confirm.html, "etag"),
    });
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe("/dashboard/animals");
    const list = await browser.get("/dashboard/animals");
    expect(list.html).toContain("Leaving is deleted");
    expect((await browser.get(`/dashboard/animals/${id}`)).status).toBe(404);
  });
});
