import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Direction } from "../../../src/api/cursor.ts";
import type { PetFinders } from "../../../src/pets/pet-finders.ts";
import { listPets, SEARCH_WINDOW } from "../../../src/pets/pet-listing.queries.ts";
import { countingRows } from "../../bench/floor/rows-read.ts";
import { testServices } from "../support/keys.ts";

/*
 * What a page from a window of the live animals reads, as D1 bills it
 * (`meta.rows_read` summed over every statement the listing runs): a filter
 * most animals match fills its page from the window's first entries and
 * reads about those, however many more the window holds; a filter few match
 * still examines the whole window, and no more, and goes on after it.
 */

const ANIMALS = SEARCH_WINDOW + 2_000;
const LIMIT = 20;
/** Every tenth animal is male, the rest female. */
const MALE_EVERY = 10;
/** The animals (by their place in id order, from 1) with special needs: one inside each direction's first window. */
const SPECIAL = [1_000, ANIMALS - 1_500];
/**
 * What one animal the page examines may cost: its live index entry, its
 * row, its photos' lookup. A page of LIMIT + 1 rows from the window's first
 * entries reads that many times over, never the window's 10,000.
 */
const PER_ANIMAL = 3;

const { db } = testServices();
/** The animals' ids in order. */
let ids: number[] = [];

beforeAll(async () => {
  await env.DB.prepare(
    `INSERT INTO pets (name, category_id, status, version, created_at, sex, special_needs)
     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ANIMALS})
     SELECT 'Win ' || i, 1, 'available', 1, 0,
       CASE WHEN i % ${MALE_EVERY} = 0 THEN 'male' ELSE 'female' END,
       CASE WHEN i IN (${SPECIAL.join(", ")}) THEN 1 ELSE 0 END
     FROM n ORDER BY i`,
  ).run();
  const { results } = await env.DB.prepare(
    "SELECT id FROM pets WHERE name LIKE 'Win %' AND deleted_at IS NULL ORDER BY id",
  ).all<{ id: number }>();
  ids = results.map((row) => row.id);
  expect(ids).toHaveLength(ANIMALS);
});

/** The first page for `finders` in `direction`, with the rows D1 read for it. */
async function firstPage(finders: PetFinders, direction: Direction) {
  const { db: counting, counted } = countingRows(db);
  const page = await listPets(counting, { ...finders, direction, after: undefined, limit: LIMIT });
  return { ids: page.pets.map((pet) => pet.id), next: page.next, rowsRead: counted.rowsRead };
}

/** The ids of the animals female, in the direction's order. */
const females = (direction: Direction) => {
  const female = ids.filter((_, i) => (i + 1) % MALE_EVERY !== 0);
  return direction === "asc" ? female : female.toReversed();
};

describe("a page from a window of the live animals, over more than a window of them", () => {
  it.each(["asc", "desc"] as const)(
    "reads about a page of entries when most animals match a filter (%s)",
    async (direction) => {
      const page = await firstPage({ sex: "female" }, direction);
      expect(page.ids).toEqual(females(direction).slice(0, LIMIT));
      expect(page.next).toBe(page.ids.at(-1));
      expect(page.rowsRead).toBeGreaterThan(LIMIT);
      expect(page.rowsRead).toBeLessThanOrEqual(PER_ANIMAL * (LIMIT + 1));
    },
  );

  it("ends short at the window's last entry when few animals match, either way", async () => {
    const special = SPECIAL.map((place) => ids[place - 1]);
    const ascending = await firstPage({ yesNo: { specialNeeds: true } }, "asc");
    expect(ascending.ids).toEqual([special[0]]);
    expect(ascending.next).toBe(ids[SEARCH_WINDOW - 1]);
    const descending = await firstPage({ yesNo: { specialNeeds: true } }, "desc");
    expect(descending.ids).toEqual([special[1]]);
    expect(descending.next).toBe(ids[ANIMALS - SEARCH_WINDOW]);
  });

  it("ends where the animals do when the window holds fewer than it may", async () => {
    const after = ids[ANIMALS - 100];
    const page = await listPets(db, {
      yesNo: { specialNeeds: true },
      direction: "asc",
      after,
      limit: LIMIT,
    });
    expect(page).toEqual({ pets: [], next: undefined });
  });
});
