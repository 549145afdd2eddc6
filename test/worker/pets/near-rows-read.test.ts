import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { listPetsNear } from "../../../src/pets/pet-listing-near.queries.ts";
import type { NearPosition } from "../../../src/shelters/near-cursor.ts";
import { countingRows } from "../../bench/floor/rows-read.ts";
import { type SeededKey, seedUnlimitedKey, testServices } from "../support/keys.ts";
import { insertSheltersNorth } from "../support/shelters.ts";

/*
 * What a page by distance reads, as D1 bills it (`meta.rows_read` summed
 * over every statement the listing runs): one row for each shelter near the
 * place, and from the nearest only the animals the page lists, however many
 * more they hold. 40 shelters of 100 animals each, the four nearest in one
 * 100 m unit, their animals' ids interleaved.
 */

const SHELTERS = 40;
const ANIMALS = 100;
const SHARING = 4;
const LIMIT = 20;
/**
 * What one shelter near the place costs a page whatever its animals: its
 * R*Tree entry, which holds its coordinates too; the shelter itself is
 * never read, nor sorted, numbered or stored in a temporary table.
 */
const PER_SHELTER = 1;
/**
 * The animals of the nearest unit's shelters, merged by id as each one's
 * index gives them: the page's, the one that says another page follows, and
 * at most one more from each shelter (the merge reads each one ahead).
 */
const NEAREST_ANIMALS = LIMIT + 1 + SHARING;
/** What a page with a filter besides the place costs each animal the merge of the nearest unit examines: its row, by its shelter's index. */
const PER_MERGED = 1;
/** What such a page costs each animal the walk examines, when the merge could not fill it: its entry in its shelter's index, and its test against the `id` list. */
const PER_EXAMINED = 2;
/** And each one it keeps: its id from the walk, the list's entry, its row by key, and its sorting. */
const PER_KEPT = 4;
/** And each shelter the walk steps to (the nearest unit's, and the next it looks at): the walk's own rows. */
const PER_STEP = 10;
const centre = [-20, 60] as const;

let owner: SeededKey;
const { db } = testServices();
/** Each animal's id with its shelter's unit, nearest first, ties by id. */
let expected: number[] = [];

beforeAll(async () => {
  owner = await seedUnlimitedKey();
  // The first `SHARING` shelters 20 m from the centre, then one every 500 m due north.
  await insertSheltersNorth(
    owner.row.accountId,
    { city: "Rows", country: "MU", centre },
    SHELTERS,
    `max(0, i - ${SHARING - 1}) * 0.5 + 0.02`,
  );
  await env.DB.prepare(
    `INSERT INTO pets (name, category_id, status, version, created_at, shelter_id)
     WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${ANIMALS - 1})
     SELECT 'Pup', 1, 'available', 1, 0, shelters.id FROM n, shelters
     WHERE city = 'Rows' ORDER BY n.i, shelters.id`,
  ).run();
  const { results } = await env.DB.prepare(
    `SELECT pets.id FROM pets JOIN shelters ON shelters.id = pets.shelter_id WHERE city = 'Rows'
     ORDER BY max(0, shelters.id - (SELECT min(id) FROM shelters WHERE city = 'Rows') - ${SHARING - 1}), pets.id`,
  ).all<{ id: number }>();
  expected = results.map((row) => row.id);
  expect(expected).toHaveLength(SHELTERS * ANIMALS);
});

/** One page by distance from `after`, with the rows D1 read for it. */
async function pageAfter(after: NearPosition | undefined, limit = LIMIT, ids?: number[]) {
  const { db: counting, counted } = countingRows(db);
  const page = await listPetsNear(counting, {
    nearby: {
      place: { latitude: centre[0], longitude: centre[1] },
      withinKm: 50,
      sort: "distance",
    },
    ids,
    direction: "asc",
    after,
    limit,
  });
  return { ...page, rowsRead: counted.rowsRead };
}

describe("a page of animals by distance, near shelters holding many more than it lists", () => {
  it("reads the nearest shelters' animals only as far as the page takes, page after page", async () => {
    const first = await pageAfter(undefined);
    expect(first.pets.map((pet) => pet.id)).toEqual(expected.slice(0, LIMIT));
    expect(first.rowsRead).toBeGreaterThan(LIMIT);
    expect(first.rowsRead).toBeLessThanOrEqual(NEAREST_ANIMALS + PER_SHELTER * SHELTERS);
    const second = await pageAfter(first.next);
    expect(second.pets.map((pet) => pet.id)).toEqual(expected.slice(LIMIT, 2 * LIMIT));
    expect(second.rowsRead).toBeLessThanOrEqual(NEAREST_ANIMALS + PER_SHELTER * SHELTERS);
  });

  it("with a filter besides the place, merges the nearest unit's animals only until the page is full", async () => {
    // Thirty-one of the nearest unit's 400 animals, every thirteenth: the page's last and the one after it are the 261st examined.
    const kept = expected.slice(0, SHARING * ANIMALS).filter((_, i) => i % 13 === 0);
    const page = await pageAfter(undefined, LIMIT, kept);
    expect(page.pets.map((pet) => pet.id)).toEqual(kept.slice(0, LIMIT));
    const examined = 13 * LIMIT + 1 + SHARING;
    expect(page.rowsRead).toBeGreaterThanOrEqual(13 * LIMIT);
    expect(page.rowsRead).toBeLessThanOrEqual(
      PER_SHELTER * SHELTERS + PER_MERGED * examined + kept.length,
    );
  });

  it("with a filter the nearest unit cannot fill the page with, reads each animal the walk examines once, and again only those it keeps", async () => {
    // Every fortieth animal: ten in the nearest unit, then two or three in each shelter after it.
    const kept = expected.filter((_, i) => i % 40 === 0);
    const page = await pageAfter(undefined, LIMIT, kept);
    expect(page.pets.map((pet) => pet.id)).toEqual(kept.slice(0, LIMIT));
    // The merge examines the nearest unit whole, then the walk that unit and the next five shelters.
    const walked = SHARING + 5;
    expect(page.rowsRead).toBeGreaterThan(SHARING * ANIMALS + walked * ANIMALS);
    expect(page.rowsRead).toBeLessThanOrEqual(
      PER_SHELTER * SHELTERS +
        PER_MERGED * SHARING * ANIMALS +
        PER_EXAMINED * walked * ANIMALS +
        PER_KEPT * kept.length +
        PER_STEP * (walked + 1),
    );
  });

  it("never skips or repeats an animal, reading each shelter's animals only as far as the page takes", async () => {
    const listed: number[] = [];
    let after: NearPosition | undefined;
    do {
      const page = await pageAfter(after, 100);
      listed.push(...page.pets.map((pet) => pet.id));
      after = page.next;
    } while (after !== undefined && listed.length <= expected.length);
    expect(listed).toEqual(expected);
  });
});
