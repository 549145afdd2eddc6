import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { addedAnimal, hiddenField } from "../support/dashboard-animals.ts";
import { autofocused, DashboardBrowser } from "../support/dashboard-browser.ts";
import { api } from "../support/request.ts";
import { uniqueName } from "../support/webhooks.ts";

const LONDON = {
  email: "hello@tails.example",
  phone: "+44 20 7946 0000",
  website: "",
  street: "1 Park Lane",
  city: "London",
  region: "",
  postalCode: "W1K 1AA",
  country: "GB",
  latitude: "51.5072",
  longitude: "-0.1276",
};

async function signedIn(): Promise<DashboardBrowser> {
  const browser = new DashboardBrowser();
  await browser.newAccount();
  return browser;
}

/** Opens the new-shelter form and posts it with these fields; the id of the shelter it made. */
async function addedShelter(browser: DashboardBrowser, fields: Record<string, string> = {}) {
  const form = await browser.get("/dashboard/shelters/new");
  const formKey = hiddenField(form.html, "formKey");
  const page = await browser.post("/dashboard/shelters", {
    formKey,
    name: uniqueName("Tails"),
    ...LONDON,
    ...fields,
  });
  expect(page.status, page.html).toBe(303);
  return Number(/^\/dashboard\/shelters\/(\d+)$/.exec(page.location ?? "")?.[1]);
}

async function sheltersNamed(name: string): Promise<number> {
  const row = await env.DB.prepare(
    "SELECT count(*) AS n FROM shelters WHERE name = ? AND deleted_at IS NULL",
  )
    .bind(name)
    .first<{ n: number }>();
  return row?.n ?? -1;
}

describe("the account's shelters", () => {
  it("adds one through the API's change, its address by its members' names, and shows it", async () => {
    const browser = await signedIn();
    const name = uniqueName("Happy Tails");
    const id = await addedShelter(browser, { name });
    const page = await browser.get(`/dashboard/shelters/${id}`);
    expect(page.html).toContain(`${name} is added.`);
    expect(page.html).toContain("1 Park Lane, London, W1K 1AA, GB");
    expect(page.html).toContain(
      'href="https://www.openstreetmap.org/?mlat=51.5072&amp;mlon=-0.1276#map=16/51.5072/-0.1276"',
    );
    const { key } = await browser.createKey();
    const res = await api(`/v1/shelters/${id}`, { key });
    expect(await res.json()).toMatchObject({
      name,
      phone: "+44 20 7946 0000",
      website: null,
      address: {
        street: "1 Park Lane",
        city: "London",
        region: null,
        postalCode: "W1K 1AA",
        country: "GB",
      },
      latitude: 51.5072,
      longitude: -0.1276,
    });
    const list = await browser.get("/dashboard/shelters");
    expect(list.html).toContain(`/dashboard/shelters/${id}"`);
  });

  it("a double submit makes one shelter", async () => {
    const browser = await signedIn();
    const name = uniqueName("Once");
    const form = await browser.get("/dashboard/shelters/new");
    const fields = { formKey: hiddenField(form.html, "formKey"), name, ...LONDON };
    const [first, second] = [
      await browser.post("/dashboard/shelters", fields),
      await browser.post("/dashboard/shelters", fields),
    ];
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.location).toBe(first.location);
    expect(await sheltersNamed(name)).toBe(1);
  });

  it("refuses what the API refuses, each field with its error, the focus on the first", async () => {
    const browser = await signedIn();
    const form = await browser.get("/dashboard/shelters/new");
    const page = await browser.post("/dashboard/shelters", {
      formKey: hiddenField(form.html, "formKey"),
      ...LONDON,
      name: "Nowhere",
      email: "not an address",
      country: "XX",
      latitude: "91",
    });
    expect(page.status).toBe(400);
    for (const field of ["email", "country", "latitude"]) {
      expect(page.html).toContain(`id="${field}-error"`);
    }
    expect(autofocused(page.html)).toBe("email");
  });

  it("the plan's cap refuses another with the reason (Free holds one)", async () => {
    const browser = await signedIn();
    await addedShelter(browser);
    const form = await browser.get("/dashboard/shelters/new");
    const page = await browser.post("/dashboard/shelters", {
      formKey: hiddenField(form.html, "formKey"),
      name: "Second",
      ...LONDON,
    });
    expect(page.status).toBe(409);
    expect(page.html).toContain("Your plan holds at most 1 shelter");
  });

  it("refuses an edit from a stale page, showing the current values; clears emptied fields", async () => {
    const browser = await signedIn();
    const id = await addedShelter(browser);
    const stale = await browser.get(`/dashboard/shelters/${id}/edit`);
    const etag = hiddenField(stale.html, "etag");
    const saved = await browser.post(`/dashboard/shelters/${id}`, {
      etag,
      ...LONDON,
      name: "Renamed",
      street: "",
    });
    expect(saved.status).toBe(303);
    const refused = await browser.post(`/dashboard/shelters/${id}`, {
      etag,
      ...LONDON,
      name: "Lost",
    });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain("Someone changed this shelter");
    expect(refused.html).toContain('value="Renamed"');
    expect(await sheltersNamed("Lost")).toBe(0);
    const row = await env.DB.prepare("SELECT street FROM shelters WHERE id = ?")
      .bind(id)
      .first<{ street: string | null }>();
    expect(row?.street).toBeNull();
  });

  it("another account's shelter is not found, on every page and post", async () => {
    const owner = await signedIn();
    const id = await addedShelter(owner, { name: "Theirs" });
    const other = await signedIn();
    for (const path of ["", "/edit", "/delete"]) {
      expect((await other.get(`/dashboard/shelters/${id}${path}`)).status, path).toBe(404);
    }
    const posted = await other.post(`/dashboard/shelters/${id}`, {
      etag: '"1"',
      ...LONDON,
      name: "Stolen",
    });
    expect(posted.status).toBe(404);
    expect((await other.post(`/dashboard/shelters/${id}/delete`, { etag: '"1"' })).status).toBe(
      404,
    );
    expect(await sheltersNamed("Stolen")).toBe(0);
    expect(await sheltersNamed("Theirs")).toBe(1);
    // Nor can another account's animal be put there.
    const form = await other.get("/dashboard/animals/new");
    const page = await other.post("/dashboard/animals", {
      formKey: hiddenField(form.html, "formKey"),
      name: "Squatter",
      categoryId: "1",
      shelterId: String(id),
    });
    expect(page.status).toBe(422);
    expect(autofocused(page.html)).toBe("shelterId");
  });

  it("deletes after asking, refused while an animal lives there", async () => {
    const browser = await signedIn();
    const id = await addedShelter(browser, { name: "Closing" });
    const animal = await addedAnimal(browser, { name: "Resident", shelterId: String(id) });
    const confirm = await browser.get(`/dashboard/shelters/${id}/delete`);
    const etag = hiddenField(confirm.html, "etag");
    const refused = await browser.post(`/dashboard/shelters/${id}/delete`, { etag });
    expect(refused.status).toBe(409);
    expect(refused.html).toContain("Animals live at Closing");
    const moved = await browser.get(`/dashboard/animals/${animal}/delete`);
    await browser.post(`/dashboard/animals/${animal}/delete`, {
      etag: hiddenField(moved.html, "etag"),
    });
    const deleted = await browser.post(`/dashboard/shelters/${id}/delete`, { etag });
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe("/dashboard/shelters");
    expect(await sheltersNamed("Closing")).toBe(0);
  });
});

describe("an animal's whole profile", () => {
  it("is added from the form by the API's names and values, shown, and cleared by emptying", async () => {
    const browser = await signedIn();
    const shelterId = await addedShelter(browser);
    const id = await addedAnimal(browser, {
      name: "Profiled",
      shelterId: String(shelterId),
      breed: "Labrador Retriever",
      age: "young",
      sex: "female",
      size: "large",
      goodWithChildren: "true",
      goodWithDogs: "false",
      goodWithCats: "",
      houseTrained: "true",
      specialNeeds: "false",
      spayedNeutered: "true",
      description: "Loves walks.\r\nSleeps all afternoon.",
    });
    const { key } = await browser.createKey();
    const res = await api(`/v1/pets?id=${id}`, { key });
    expect(await res.json()).toMatchObject([
      {
        shelterId,
        breed: "Labrador Retriever",
        age: "young",
        sex: "female",
        size: "large",
        goodWithChildren: true,
        goodWithDogs: false,
        goodWithCats: null,
        houseTrained: true,
        specialNeeds: false,
        spayedNeutered: true,
        description: "Loves walks.\nSleeps all afternoon.",
      },
    ]);
    const edit = await browser.get(`/dashboard/animals/${id}/edit`);
    expect(edit.html).toMatch(/id="goodWithChildren-true"[^>]*checked/);
    const cleared = await browser.post(`/dashboard/animals/${id}`, {
      etag: hiddenField(edit.html, "etag"),
      name: "Profiled",
      categoryId: "1",
      status: "available",
      shelterId: "",
      breed: "",
      goodWithChildren: "",
    });
    expect(cleared.status).toBe(303);
    const after = await api(`/v1/pets?id=${id}`, { key });
    expect(await after.json()).toMatchObject([
      { shelterId: null, breed: null, age: null, goodWithChildren: null, description: null },
    ]);
  });

  it("the list finds by the profile's finders", async () => {
    const browser = await signedIn();
    const shelterId = await addedShelter(browser);
    await addedAnimal(browser, {
      name: "Young one",
      age: "young",
      goodWithChildren: "true",
      shelterId: String(shelterId),
    });
    await addedAnimal(browser, { name: "Old one", age: "senior", goodWithChildren: "true" });
    const page = await browser.get(
      `/dashboard/animals?age=young&goodWithChildren=true&shelterId=${shelterId}`,
    );
    expect(page.status).toBe(200);
    expect(page.html).toContain(">Young one</a>");
    expect(page.html).not.toContain(">Old one</a>");
  });
});
