import { describe, expect, it } from "vitest";
import { createPet } from "../support/assertions.ts";
import { addedAnimal } from "../support/dashboard-animals.ts";
import { DashboardBrowser } from "../support/dashboard-browser.ts";

/** The animals' names the list shows, in its order. */
function listed(html: string): string[] {
  return [...html.matchAll(/<a href="\/dashboard\/animals\/\d+">([^<]+)<\/a>/g)].map(
    (m) => m[1] ?? "",
  );
}

/** The address of the list's next page, as the page links it. */
function nextPage(html: string): string | undefined {
  return /<a href="(\/dashboard\/animals\?[^"]*cursor=[^"]+)">Next page<\/a>/
    .exec(html)?.[1]
    ?.replaceAll("&amp;", "&");
}

describe("the list of the account's animals", () => {
  it("lists only the account's own animals, newest first", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    await addedAnimal(browser, { name: "Older" });
    await addedAnimal(browser, { name: "Newer" });
    const other = new DashboardBrowser();
    await other.newAccount();
    const { key: otherKey } = await other.createKey();
    await createPet(otherKey, { name: "Not mine", categoryId: 1 });
    const page = await browser.get("/dashboard/animals");
    expect(page.status).toBe(200);
    expect(listed(page.html)).toEqual(["Newer", "Older"]);
  });

  it("finds by the API's finders: name words, status, category, combined", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    await addedAnimal(browser, { name: "Bella Blue", categoryId: "2", status: "sold" });
    await addedAnimal(browser, { name: "Bella Red", categoryId: "1" });
    await addedAnimal(browser, { name: "Rex", categoryId: "1", status: "sold" });
    const find = async (query: string) =>
      listed((await browser.get(`/dashboard/animals?${query}`)).html);
    expect(await find("q=bel")).toEqual(["Bella Red", "Bella Blue"]);
    expect(await find("status=sold")).toEqual(["Rex", "Bella Blue"]);
    expect(await find("categoryId=1&status=")).toEqual(["Rex", "Bella Red"]);
    expect(await find("q=bel&status=sold&categoryId=")).toEqual(["Bella Blue"]);
    const refused = await browser.get("/dashboard/animals?status=lost");
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("These filters cannot be used");
  });

  it("pages by the API's cursor, keeping the finders, never skipping or repeating", async () => {
    const browser = new DashboardBrowser();
    await browser.newAccount();
    const names = Array.from({ length: 23 }, (_, i) => `Paged ${String(i).padStart(2, "0")}`);
    for (const name of names) await addedAnimal(browser, { name });
    await addedAnimal(browser, { name: "Other name" });
    const first = await browser.get("/dashboard/animals?q=paged");
    expect(listed(first.html)).toHaveLength(20);
    const next = nextPage(first.html);
    expect(next).toContain("q=paged");
    const second = await browser.get(next ?? "");
    expect(nextPage(second.html)).toBeUndefined();
    expect([...listed(first.html), ...listed(second.html)]).toEqual([...names].reverse());
    expect((await browser.get("/dashboard/animals?cursor=nonsense")).status).toBe(400);
  });
});
