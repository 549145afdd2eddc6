import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { nearPetFinders } from "../../../src/pets/pet-listing-near.queries.ts";
import { MERGED_SHELTERS } from "../../../src/pets/pet-near-nearest.queries.ts";
import { nearShelterFinders } from "../../../src/shelters/shelters-near.queries.ts";
import { testServices } from "../support/keys.ts";

/**
 * A listing with `near` costs what the shelters near the place and their
 * animals cost, whatever the size of the catalogue, only if SQLite asks the
 * R*Tree for the box, takes each candidate's place from the R*Tree alone
 * (never reading the shelter) and its animals through the index of each
 * shelter's animals: these are the plans it chooses for the very
 * statements the handlers run.
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
/** A plan that reads the shelters' table at all. */
const READS_SHELTERS = /\bshelters\b/;
/** The R*Tree asked for one place by its shelter's id. */
const PLACE_BY_KEY = /SCAN shelter_places VIRTUAL TABLE INDEX 1:/;
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
        expect(plan).not.toMatch(READS_SHELTERS);
        expect(plan).toMatch(
          /SEARCH pets USING (COVERING )?INDEX pets_shelter_id_idx \(shelter_id=\?( AND id[<>]\?)?\)/,
        );
        expect(plan).not.toMatch(SCANS_TABLE);
      }
    },
  );

  it.each(["idAsc", "idDesc"] as const)(
    "by id, count the circle's animals by index from the cursor, and in a crowded circle read the animals by id, each one's place by key (%s)",
    async (order) => {
      const { count, scanned, scannedEdge } = pets[order];
      const counting = await planOf(count);
      expect(counting.match(BOX)?.length ?? 0, counting).toBe(2);
      expect(counting).not.toMatch(READS_SHELTERS);
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
      expect(plan.match(BOX)?.length ?? 0, plan).toBe(0);
      expect(plan).toMatch(PLACE_BY_KEY);
      expect(plan).not.toMatch(READS_SHELTERS);
      expect(plan).toMatch(/SEARCH pets USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    },
  );

  it("by distance, read the box's places from the R*Tree alone, then walk them as bound, counting each one's animals by index", async () => {
    const { ring, page } = pets.distance;
    const shelters = await planOf(ring);
    expect(shelters.match(BOX)?.length ?? 0, shelters).toBe(2);
    expect(shelters).not.toMatch(READS_SHELTERS);
    expect(shelters).not.toMatch(/\bpets\b/);
    expect(shelters, "the Worker sorts the ring").not.toMatch(/TEMP B-TREE/);
    const plan = await planOf(page);
    // The walk takes the shelters as the first statement found them, never reading them again.
    expect(plan, plan).not.toMatch(/shelter_places|\bshelters\b/);
    // Each shelter's animals after the cursor read by index once, by the walk; the page reads
    // by index only the shelters it covers beyond the walk, the walk's own kept ones by key.
    expect(
      plan.match(/SEARCH pets USING INDEX pets_shelter_id_idx \(shelter_id=\? AND id>\?\)/g),
    ).toHaveLength(2);
    expect(plan).toMatch(/SEARCH pets USING INTEGER PRIMARY KEY \(rowid=\?\) LEFT-JOIN/);
    expect(plan).not.toMatch(SCANS_TABLE);
  });

  /** Each merged shelter's animals after the cursor, by that shelter's index. */
  const ARM = /SEARCH pets USING INDEX pets_shelter_id_idx \(shelter_id=\? AND id>\?\)/g;

  it("by distance, merge the nearest unit's shelters' animals by id as each one's index gives them, sorting none", async () => {
    const plan = await planOf(pets.distance.nearest);
    expect(plan.match(ARM), plan).toHaveLength(MERGED_SHELTERS);
    expect(plan).toMatch(/MERGE \(UNION ALL\)/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
    expect(plan).not.toMatch(/shelter_places|\bshelters\b/);
    expect(plan).not.toMatch(SCANS_TABLE);
  });

  it("by distance with other filters, check them on that merge as it goes, sorting none", async () => {
    const plan = await planOf(pets.distance.nearestFiltered);
    expect(plan.match(ARM), plan).toHaveLength(MERGED_SHELTERS);
    expect(plan).toMatch(/MERGE \(UNION ALL\)/);
    expect(plan, "no arm sorts its own rows for filters copied into it").not.toMatch(/TEMP B-TREE/);
    expect(plan).not.toMatch(/shelter_places|\bshelters\b/);
    // The merge is named as the table, so its one scan reads it as it goes, never the table.
    expect(plan).toMatch(/^CO-ROUTINE pets\n/);
    expect(plan.match(/SCAN pets\b/g)).toHaveLength(1);
  });

  it.each(["distance", "id"] as const)(
    "for shelters with no other finder, sort the box's places from the R*Tree alone, then read the page's shelters by key in that order (%s)",
    async (sort) => {
      const plan = await planOf(nearShelterFinders(db).placesOnly[sort]);
      expect(plan.match(BOX)?.length ?? 0, plan).toBe(2);
      // One sort, of the places; the page's shelters follow them by key, never sorted again.
      expect(plan.match(/TEMP B-TREE/g)).toHaveLength(1);
      expect(plan).toMatch(/SCAN placed\nSEARCH shelters USING INTEGER PRIMARY KEY \(rowid=\?\)$/);
      expect(plan).not.toMatch(SCANS_TABLE);
    },
  );

  it("for shelters, read the box's places from the R*Tree alone, then the window's shelters by key in its order, sorting none", async () => {
    const { circle, page } = nearShelterFinders(db);
    const places = await planOf(circle);
    expect(places.match(BOX)?.length ?? 0, places).toBe(2);
    expect(places).not.toMatch(READS_SHELTERS);
    expect(places, "the Worker sorts the circle").not.toMatch(/TEMP B-TREE/);
    const listing = await planOf(page);
    expect(listing, listing).toMatch(/^SCAN windowed VIRTUAL TABLE/);
    expect(listing).toMatch(SHELTER_BY_KEY);
    expect(listing).not.toMatch(/TEMP B-TREE|shelter_places/);
    expect(listing).not.toMatch(SCANS_TABLE);
  });
});
