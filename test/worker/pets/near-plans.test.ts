import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { nearPetFinders } from "../../../src/pets/pet-listing-near.queries.ts";
import { nearShelterFinders } from "../../../src/shelters/shelters-near.queries.ts";
import { testServices } from "../support/keys.ts";

/**
 * A listing with `near` costs what the shelters near the place and their
 * animals cost, whatever the size of the catalogue, only if SQLite asks the
 * R*Tree for the box, fetches each candidate shelter by primary key and its
 * animals through the index of each shelter's animals: these are the plans
 * it chooses for the very statements the handlers run.
 */
async function planOf(query: { getQuery(): { sql: string; params: unknown[] } }): Promise<string> {
  const { sql, params } = query.getQuery();
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params.map((param) => (typeof param === "object" ? 1 : param)))
    .all<{ detail: string }>();
  return results.map((row) => row.detail).join("\n");
}

/** The R*Tree asked for a box: a constraint on each of its four coordinates, for each longitude range. */
const BOX = /SCAN shelter_places VIRTUAL TABLE INDEX 2:(?:[A-D][0-3]){4}/g;
const SHELTER_BY_KEY = /SEARCH shelters USING INTEGER PRIMARY KEY \(rowid=\?\)/;
/** A plan that reads a table of animals or shelters row by row. */
const SCANS_TABLE = /SCAN (pets|shelters)\b/;

describe("the near listings' query plans", () => {
  const { db } = testServices();
  const pets = nearPetFinders(db);

  it.each(["idAsc", "idDesc"] as const)(
    "ask the R*Tree for both ranges of the box, then each shelter's animals by index (%s)",
    async (order) => {
      const { straight, page, window } = pets[order];
      for (const statement of [straight, page, window]) {
        const plan = await planOf(statement);
        expect(plan.match(BOX)?.length ?? 0, plan).toBeGreaterThanOrEqual(2);
        expect(plan).toMatch(SHELTER_BY_KEY);
        expect(plan).toMatch(
          /SEARCH pets USING (COVERING )?INDEX pets_shelter_id_idx \(shelter_id=\?( AND id[<>]\?)?\)/,
        );
        expect(plan).not.toMatch(SCANS_TABLE);
      }
    },
  );

  it.each(["idAsc", "idDesc"] as const)(
    "by id, count the circle's animals by index from the cursor, and in a crowded circle read the animals by id, each one's shelter by key (%s)",
    async (order) => {
      const { count, scanned, scannedEdge } = pets[order];
      const counting = await planOf(count);
      expect(counting.match(BOX)?.length ?? 0, counting).toBe(2);
      expect(counting).toMatch(SHELTER_BY_KEY);
      expect(counting).toMatch(
        /SEARCH pets USING (COVERING )?INDEX pets_shelter_id_idx \(shelter_id=\? AND id[<>]\?\)/,
      );
      expect(counting).not.toMatch(SCANS_TABLE);
      for (const statement of [scanned, scannedEdge]) {
        const plan = await planOf(statement);
        // The animals read in id order from the cursor, never every animal of the circle.
        expect(plan).toMatch(/SEARCH pets USING (COVERING )?INDEX pets_live_id_idx \(id[<>]\?\)/);
        expect(plan).not.toMatch(/pets_shelter_id_idx/);
        expect(plan).not.toMatch(SCANS_TABLE);
      }
      const plan = await planOf(scanned);
      expect(plan.match(BOX)?.length ?? 0, plan).toBe(2);
      expect(plan).toMatch(SHELTER_BY_KEY);
      expect(plan).toMatch(/SEARCH pets USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    },
  );

  it("by distance, walk the shelters of the box once each, by their number, and count each one's animals by index", async () => {
    const { page, window } = pets.distance;
    for (const [statement, walks] of [
      [window, 1],
      [page, 2],
    ] as const) {
      const plan = await planOf(statement);
      expect(plan.match(BOX)?.length ?? 0, plan).toBe(2);
      expect(plan).toMatch(SHELTER_BY_KEY);
      // The next shelter of the walk found by its number, never by reading them all again.
      expect(plan).toMatch(/SEARCH ring USING AUTOMATIC COVERING INDEX \(n=\?\)/);
      // Each shelter's animals after the cursor read once by the walk (and once more by the
      // page, no further than the walk read when it filled the page).
      expect(
        plan.match(
          /SEARCH pets USING INDEX pets_shelter_id_idx \(shelter_id=\? AND id>\?( AND id<\?)?\)/g,
        ),
      ).toHaveLength(walks);
      expect(plan).not.toMatch(SCANS_TABLE);
    }
  });

  it.each(["distance", "id"] as const)(
    "ask the R*Tree for the shelters' box (%s)",
    async (order) => {
      const { page, window } = nearShelterFinders(db)[order];
      for (const statement of [page, window]) {
        const plan = await planOf(statement);
        expect(plan.match(BOX)?.length ?? 0, plan).toBe(2);
        expect(plan).toMatch(SHELTER_BY_KEY);
        expect(plan).not.toMatch(SCANS_TABLE);
      }
    },
  );
});
