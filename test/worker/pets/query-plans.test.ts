import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { categoryQueries } from "../../../src/categories/categories.queries.ts";
import { orderQueries } from "../../../src/orders/orders.queries.ts";
import { petFinders } from "../../../src/pets/pet-listing.queries.ts";
import { shelterQueries } from "../../../src/shelters/shelters.queries.ts";
import { testServices } from "../support/keys.ts";

/**
 * Listings page by key (after the last id seen), so a page deep into a large
 * table costs what the first does only if SQLite walks an index straight to
 * the position: these are the plans it chooses for the very statements the
 * handlers run.
 */
async function planOf(query: { getQuery(): { sql: string; params: unknown[] } }): Promise<string> {
  const { sql, params } = query.getQuery();
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params.map((param) => (typeof param === "object" ? 1 : param)))
    .all<{ detail: string }>();
  return results.map((row) => row.detail).join("\n");
}

/** A plan that reads a table of animals row by row, rather than searching an index. */
const SCANS_ANIMALS = /SCAN (pets|candidate|chosen)\b/;

describe("the listings' query plans", () => {
  const { db } = testServices();
  const finders = petFinders(db);

  it("walk the index of live animals from the cursor, either way", async () => {
    expect(await planOf(finders.asc.all)).toMatch(
      /SEARCH pets USING (COVERING )?INDEX pets_live_id_idx \(id>\?\)/,
    );
    expect(await planOf(finders.desc.all)).toMatch(
      /SEARCH pets USING (COVERING )?INDEX pets_live_id_idx \(id<\?\)/,
    );
    for (const plan of [await planOf(finders.asc.all), await planOf(finders.desc.all)]) {
      expect(plan).not.toMatch(/SCAN|TEMP B-TREE/);
    }
  });

  it.each([
    ["status", "byStatus", "pets_status_id_idx \\(status=\\? AND id[<>]\\?\\)"],
    ["category", "byCategory", "pets_category_id_idx \\(category_id=\\? AND id[<>]\\?\\)"],
    [
      "status and category",
      "byStatusAndCategory",
      "pets_category_status_id_idx \\(category_id=\\? AND status=\\? AND id[<>]\\?\\)",
    ],
    ["shelter", "byShelter", "pets_shelter_id_idx \\(shelter_id=\\? AND id[<>]\\?\\)"],
    ["age", "byAge", "pets_age_id_idx \\(age=\\? AND id[<>]\\?\\)"],
    ["size", "bySize", "pets_size_id_idx \\(size=\\? AND id[<>]\\?\\)"],
  ] as const)(
    "walk the %s index from the cursor for each value, then fetch only those by primary key",
    async (_, finder, index) => {
      for (const direction of ["asc", "desc"] as const) {
        const plan = await planOf(finders[direction][finder]);
        expect(plan).toMatch(new RegExp(`SEARCH candidate USING (COVERING )?INDEX ${index}`));
        expect(plan).toMatch(/SEARCH (pets|chosen) USING INTEGER PRIMARY KEY \(rowid=\?\)/);
        expect(plan).not.toMatch(SCANS_ANIMALS);
      }
    },
  );

  it("fetch the ids asked for by primary key, whatever else narrows them", async () => {
    for (const finder of ["byIds", "byIdsAndSearch"] as const) {
      const plan = await planOf(finders.asc[finder]);
      expect(plan).toMatch(/SEARCH pets USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      expect(plan).not.toMatch(SCANS_ANIMALS);
    }
  });

  it("walk the search index from the cursor for q and breed, alone or in a window", async () => {
    for (const direction of ["asc", "desc"] as const) {
      const { bySearch, searchWindow } = finders[direction];
      for (const statement of [bySearch, searchWindow.page, searchWindow.window]) {
        const plan = await planOf(statement);
        expect(plan).toMatch(/SCAN pet_search VIRTUAL TABLE INDEX/);
        expect(plan).not.toMatch(SCANS_ANIMALS);
      }
      for (const statement of [bySearch, searchWindow.page]) {
        expect(await planOf(statement)).toMatch(
          /SEARCH pets USING INTEGER PRIMARY KEY \(rowid=\?\)/,
        );
      }
      // The window yields its entries to the page as it walks them, so a full page stops early.
      expect(await planOf(searchWindow.page)).toMatch(/CO-ROUTINE windowed/);
      expect(await planOf(searchWindow.page)).not.toMatch(/MATERIALIZE|TEMP B-TREE/);
    }
  });

  it("walk a window of the index of live animals from the cursor for other combinations", async () => {
    for (const direction of ["asc", "desc"] as const) {
      const { liveWindow } = finders[direction];
      for (const statement of [liveWindow.page, liveWindow.window]) {
        const plan = await planOf(statement);
        expect(plan).toMatch(/SEARCH pets USING (COVERING )?INDEX pets_live_id_idx \(id[<>]\?\)/);
        expect(plan).not.toMatch(/SCAN pets\b/);
      }
      // The window yields its entries to the page as it walks them, so a full page stops early.
      const page = await planOf(liveWindow.page);
      expect(page).toMatch(/CO-ROUTINE windowed/);
      expect(page).toMatch(/SEARCH pets USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      expect(page).not.toMatch(/MATERIALIZE|TEMP B-TREE/);
    }
  });

  it("walk the shelters' indexes from the cursor: live, by country, by name, by id", async () => {
    const shelters = shelterQueries(db);
    expect(await planOf(shelters.all)).toMatch(
      /SEARCH shelters USING (COVERING )?INDEX shelters_live_id_idx \(id>\?\)/,
    );
    expect(await planOf(shelters.byCountry)).toMatch(
      /SEARCH candidate USING (COVERING )?INDEX shelters_country_id_idx \(country=\? AND id>\?\)/,
    );
    for (const statement of [shelters.byWords, shelters.inWindow]) {
      const plan = await planOf(statement);
      expect(plan).toMatch(/SCAN shelter_search VIRTUAL TABLE INDEX/);
      expect(plan).toMatch(/SEARCH shelters USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    }
    expect(await planOf(shelters.byIds)).toMatch(
      /SEARCH shelters USING INTEGER PRIMARY KEY \(rowid=\?\)/,
    );
    for (const statement of [shelters.all, shelters.byCountry, shelters.byIds, shelters.byWords]) {
      expect(await planOf(statement)).not.toMatch(/SCAN (shelters|candidate|chosen)\b|TEMP B-TREE/);
    }
  });

  it("walk the index of live categories from the cursor", async () => {
    const plan = await planOf(categoryQueries(db).page);
    expect(plan).toMatch(
      /SEARCH categories USING (COVERING )?INDEX categories_live_id_idx \(id>\?\)/,
    );
    expect(plan).not.toMatch(/SCAN|TEMP B-TREE/);
  });

  it("walks the account's indexes for orders, with and without a status", async () => {
    const all = await planOf(orderQueries(db).page);
    const byStatus = await planOf(orderQueries(db).pageByStatus);
    expect(all).toMatch(
      /SEARCH orders USING (COVERING )?INDEX orders_account_id_idx \(account_id=\? AND id>\?\)/,
    );
    expect(byStatus).toMatch(
      /SEARCH orders USING (COVERING )?INDEX orders_account_status_id_idx \(account_id=\? AND status=\? AND id>\?\)/,
    );
    expect(`${all}\n${byStatus}`).not.toMatch(/SCAN|TEMP B-TREE/);
  });
});
