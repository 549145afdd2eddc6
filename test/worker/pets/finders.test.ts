import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SEARCH_WINDOW } from "../../../src/pets/pet-listing.queries.ts";
import { type CreatedPet, createPet, expectError } from "../support/assertions.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { api, jsonOf, MANY_REQUESTS, ORIGIN } from "../support/request.ts";

/*
 * The listing's finders, by example: each filter, their combinations, the
 * direction, and what the search makes of text. finders-property.test.ts
 * holds them all against a model.
 */

let key: string;
const made: CreatedPet[] = [];

beforeAll(async () => {
  ({ key } = await seedUnlimitedKey());
  for (const [name, categoryId, status] of [
    ["Bella", 1, "available"],
    ["Bélla", 2, "pending"],
    ["Rex the Brave", 1, "sold"],
    ["the Rex", 3, "available"],
    ["Ærø", 2, "available"],
    ["Straße", 2, "sold"],
    ["Isabella", 1, "available"],
    ["O'Malley", 3, "pending"],
  ] as const) {
    made.push(await createPet(key, { name, categoryId, status }));
  }
});

const byName = (name: string) => made.find((pet) => pet.name === name)?.id;

/** The names a listing finds, following Link to the end. */
async function names(query: string): Promise<string[]> {
  const found: string[] = [];
  let path: string | null = `/v1/pets?${query}`;
  for (let pages = 0; path !== null && pages < 50; pages++) {
    const res = await api(path, { key });
    const text = await res.text();
    expect(res.status, `${path}: ${text}`).toBe(200);
    found.push(...(JSON.parse(text) as CreatedPet[]).map((pet) => pet.name));
    const next = res.headers.get("Link")?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    path = next ? next.slice(ORIGIN.length) : null;
  }
  return found;
}

describe("finding animals", () => {
  it("finds by words that begin words of the name, ignoring case and accents", async () => {
    expect(await names("q=bel")).toEqual(["Bella", "Bélla"]);
    expect(await names("q=BÉL")).toEqual(["Bella", "Bélla"]);
    expect(await names("q=rex%20the")).toEqual(["Rex the Brave", "the Rex"]);
    expect(await names("q=brave%20rex")).toEqual(["Rex the Brave"]);
    expect(await names("q=ella")).toEqual([]);
    expect(await names("q=malley")).toEqual(["O'Malley"]);
  });

  it("does not fold æ, ø or ß", async () => {
    expect(await names("q=%C3%A6r%C3%B8")).toEqual(["Ærø"]);
    expect(await names("q=aero")).toEqual([]);
    expect(await names("q=stra%C3%9F")).toEqual(["Straße"]);
    expect(await names("q=strass")).toEqual([]);
  });

  it.each([
    ['"bel', ["Bella", "Bélla"]],
    ["bel AND rex", []],
    ["bel OR rex", []],
    ["NOT bel", []],
    ["bel*", ["Bella", "Bélla"]],
    ["^bel", ["Bella", "Bélla"]],
    ["name:bel", []],
    ["NEAR(bel rex)", []],
    ["-bel", ["Bella", "Bélla"]],
  ] as const)("treats %j as words: 200, never a failed search", async (q, expected) => {
    expect(await names(`q=${encodeURIComponent(q)}`)).toEqual(expected);
  });

  it("filters by any of several statuses and categories, and by both", async () => {
    expect(await names("status=pending&status=sold")).toEqual([
      "Bélla",
      "Rex the Brave",
      "Straße",
      "O'Malley",
    ]);
    expect(await names("categoryId=3&categoryId=2")).toEqual([
      "Bélla",
      "the Rex",
      "Ærø",
      "Straße",
      "O'Malley",
    ]);
    expect(await names("categoryId=1&categoryId=2&status=available")).toEqual([
      "Bella",
      "Ærø",
      "Isabella",
    ]);
  });

  it("fetches known ids, in the listing's order, leaving out ids that name no animal", async () => {
    const ids = [byName("Isabella"), 9_007_199_254_740_991, byName("Bella"), byName("Bella")];
    expect(await names(ids.map((id) => `id=${id}`).join("&"))).toEqual(["Bella", "Isabella"]);
    expect(await names(`id=${byName("Straße")}`)).toEqual(["Straße"]);
    expect(await names(`id=${byName("Bella")}&status=sold`)).toEqual([]);
    expect(await names(`id=${byName("Bella")}&id=${byName("Bélla")}&q=bel&direction=desc`)).toEqual(
      ["Bélla", "Bella"],
    );
  });

  it("lists newest first with direction=desc, a filter and paging alike", async () => {
    const all = made.map((pet) => pet.name);
    expect(await names("direction=desc&limit=3")).toEqual([...all].reverse());
    expect(await names("direction=desc&limit=1&categoryId=1")).toEqual([
      "Isabella",
      "Rex the Brave",
      "Bella",
    ]);
    expect(await names("direction=desc&limit=1&q=rex")).toEqual(["the Rex", "Rex the Brave"]);
  });

  it("keeps every filter in the next link, and the direction in its cursor", async () => {
    const query = "limit=1&status=available&status=sold&categoryId=1&q=b&direction=desc";
    const res = await api(`/v1/pets?${query}`, { key });
    await res.json();
    const next = new URL(res.headers.get("Link")?.match(/^<([^>]+)>/)?.[1] ?? "");
    expect(next.searchParams.get("limit")).toBe("1");
    expect(next.searchParams.getAll("status")).toEqual(["available", "sold"]);
    expect(next.searchParams.getAll("categoryId")).toEqual(["1"]);
    expect(next.searchParams.get("q")).toBe("b");
    expect(next.searchParams.get("direction")).toBe("desc");
    // The same cursor asked to run the other way is not one this service issued.
    next.searchParams.delete("direction");
    const turned = await api(`${next.pathname}${next.search}`, { key });
    await expectError(turned, 400, "invalid_request", { paths: ["cursor"] });
  });
});

describe("finding animals — bad input", () => {
  it.each([
    ["q empty", "q=", ["q"]],
    ["q over 100 characters", `q=${"a".repeat(101)}`, ["q"]],
    ...['"', "(", "+ {} [] ; ' \\", "***", " ", "🐶"].map((q): [string, string, string[]] => [
      `q without a word: ${JSON.stringify(q)}`,
      `q=${encodeURIComponent(q)}`,
      ["q"],
    ]),
    ["an unknown status among others", "status=available&status=adopted", ["status"]],
    ["four statuses", "status=sold&status=sold&status=sold&status=sold", ["status"]],
    ["a categoryId of 0", "categoryId=0", ["categoryId"]],
    ["an id that is not a number", "id=abc", ["id"]],
    ["101 ids", Array.from({ length: 101 }, (_, i) => `id=${i + 1}`).join("&"), ["id"]],
    [
      "101 categories",
      Array.from({ length: 101 }, (_, i) => `categoryId=${i + 1}`).join("&"),
      ["categoryId"],
    ],
    ["an unknown direction", "direction=up", ["direction"]],
  ])("refuses %s with 400 invalid_request", async (_, query, paths) => {
    await expectError(await api(`/v1/pets?${query}`, { key }), 400, "invalid_request", { paths });
  });

  it("takes q of exactly 100 characters, and 100 ids", async () => {
    expect(await names(`q=${"b".repeat(100)}`)).toEqual([]);
    const ids = Array.from({ length: 100 }, (_, i) => `id=${i + 1}`).join("&");
    expect((await api(`/v1/pets?${ids}&limit=100`, { key })).status).toBe(200);
  });
});

describe("q with another filter over a large catalogue", () => {
  it(
    "examines one window of the search index per page: short pages, even empty, with a Link to go on",
    MANY_REQUESTS,
    async () => {
      // Written straight to D1 as the changes write them, the animal and its words: far
      // more than a window of animals named Crowd, of which only the last few are sold.
      const crowd = SEARCH_WINDOW + 40;
      await env.DB.batch([
        env.DB.prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO pets (name, category_id, status, version, created_at)
         SELECT 'Crowd ' || i, 4, CASE WHEN i > ? THEN 'sold' ELSE 'available' END, 1, 0 FROM n`,
        ).bind(crowd, crowd - 5),
        env.DB.prepare(
          "INSERT INTO pet_search (rowid, name) SELECT id, name FROM pets WHERE name LIKE 'Crowd %'",
        ),
      ]);
      const first = await api("/v1/pets?q=crowd&status=sold&limit=3", { key });
      expect(await first.json()).toEqual([]);
      const link = first.headers.get("Link");
      expect(link).toMatch(/rel="next"/);
      expect(await names("q=crowd&status=sold&limit=3")).toEqual(
        Array.from({ length: 5 }, (_, i) => `Crowd ${crowd - 4 + i}`),
      );
      expect(await names("q=crowd&categoryId=4&status=sold&direction=desc&limit=2")).toEqual(
        Array.from({ length: 5 }, (_, i) => `Crowd ${crowd - i}`),
      );
      // q alone, and status alone, need no window: a full first page from their indexes.
      const alone = await jsonOf<CreatedPet[]>(await api("/v1/pets?q=crowd&limit=100", { key }));
      expect(alone).toHaveLength(100);
      const page = async (query: string) =>
        (await jsonOf<CreatedPet[]>(await api(`/v1/pets?${query}`, { key }))).map(
          (pet) => pet.name,
        );
      const soldCrowd = Array.from({ length: 5 }, (_, i) => `Crowd ${crowd - 4 + i}`);
      expect(await page("status=sold&limit=100")).toEqual([
        "Rex the Brave",
        "Straße",
        ...soldCrowd,
      ]);
      expect(await page("status=sold&categoryId=4&limit=100")).toEqual(soldCrowd);
    },
  );
});
