import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SEARCH_WINDOW } from "../../../src/pets/pet-finders.ts";
import { fromBase64Url } from "../../../src/utils/base64url.ts";
import { type SeededKey, seedUnlimitedKey } from "../support/keys.ts";
import { api, ORIGIN } from "../support/request.ts";
import { insertSheltersNorth } from "../support/shelters.ts";

/*
 * One page of animals near a place examines at most 10,000 entries,
 * shelters and animals counted. A circle dense enough holds more: 5,001
 * shelters of one animal each, twenty to a 100 m unit. A page then ends
 * early with a Link, and following every Link finds exactly what a
 * brute-force reading of the same rows finds, nearest first.
 */

const SHELTERS = 5_001;
const PER_UNIT = 20;
const centre = [-35, -140] as const;

let owner: SeededKey;
/** Each animal's id with its shelter's unit (its distance in 100 m units) and its two yes/no columns. */
let animals: { id: number; unit: number; children: boolean; dogs: boolean }[] = [];

/**
 * The shelters due north of the centre, `PER_UNIT` of them in each 100 m
 * unit (20 m past its start, far from any rounding edge), each with one
 * animal: good with children for one shelter in a thousand and the last,
 * good with dogs for one in three.
 */
async function seedCircle() {
  await insertSheltersNorth(
    owner.row.accountId,
    { city: "Ring", country: "FR", centre },
    SHELTERS,
    `(i / ${PER_UNIT}) * 0.1 + 0.02`,
  );
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO pets (name, category_id, status, version, created_at, shelter_id, good_with_children, good_with_dogs)
       SELECT 'Pup', 1, 'available', 1, 0, id,
         (id % 1000 = 0 OR id = (SELECT max(id) FROM shelters WHERE city = 'Ring')), id % 3 = 0
       FROM shelters WHERE city = 'Ring' ORDER BY id DESC`,
    ),
  ]);
  const { results } = await env.DB.prepare(
    `SELECT pets.id, shelters.id - (SELECT min(id) FROM shelters WHERE city = 'Ring') AS place,
       good_with_children AS children, good_with_dogs AS dogs
     FROM pets JOIN shelters ON shelters.id = pets.shelter_id WHERE city = 'Ring'`,
  ).all<{ id: number; place: number; children: number; dogs: number }>();
  return results.map((row) => ({
    id: row.id,
    unit: Math.floor(row.place / PER_UNIT),
    children: row.children === 1,
    dogs: row.dogs === 1,
  }));
}

interface Page {
  ids: number[];
  /** The unit and id the page's cursor resumes after; undefined on the last page. */
  resumes: { unit: number; id: number } | undefined;
}

/** The position a near cursor holds: the test reads it to count what each page covered. */
function positionOf(cursor: string) {
  const text = new TextDecoder().decode(fromBase64Url(cursor) ?? new Uint8Array());
  const [, , unit, id] = text.split(":");
  return { unit: Number(unit), id: Number(id) };
}

/** Every page from `path` on, as long as a Link goes on. */
async function pages(path: string): Promise<Page[]> {
  const found: Page[] = [];
  let next: string | null = path;
  while (next !== null) {
    expect(found.length, "runaway paging").toBeLessThan(500);
    const res = await api(next, { key: owner.key });
    const text = await res.text();
    expect(res.status, `${next}: ${text}`).toBe(200);
    const link = res.headers.get("Link")?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    const cursor = link && new URL(link).searchParams.get("cursor");
    found.push({
      ids: (JSON.parse(text) as { id: number }[]).map((item) => item.id),
      resumes: cursor ? positionOf(cursor) : undefined,
    });
    next = link ? link.slice(ORIGIN.length) : null;
  }
  return found;
}

/** The animals brute force finds for a filter, nearest first, ties by id. */
const expected = (keep: (animal: (typeof animals)[number]) => boolean) =>
  animals
    .filter(keep)
    .sort((a, b) => a.unit - b.unit || a.id - b.id)
    .map((animal) => animal.id);

/** The entries of the units from `first` to `last`: one shelter and its one animal for each shelter in them. */
const entriesOf = (first: number, last: number) =>
  2 * Math.max(0, Math.min((last + 1) * PER_UNIT, SHELTERS) - first * PER_UNIT);

beforeAll(async () => {
  owner = await seedUnlimitedKey();
  animals = await seedCircle();
  expect(animals).toHaveLength(SHELTERS);
  expect(2 * SHELTERS).toBeGreaterThan(SEARCH_WINDOW);
});

describe("a page of animals near a place, in a circle denser than the window", () => {
  const path = (filter: string, limit: number) =>
    `/v1/pets?near=${centre.join(",")}&within=50&limit=${limit}&${filter}`;

  it("ends early with a Link while a rare filter finds little, and following every Link finds exactly the brute-force answer", async () => {
    const walked = await pages(path("goodWithChildren=true", 100));
    expect(walked.length).toBeGreaterThan(1);
    expect(walked[0]?.ids.length).toBeLessThan(100);
    expect(walked[0]?.resumes).toBeDefined();
    expect(walked.flatMap((page) => page.ids)).toEqual(expected((animal) => animal.children));
  });

  it("covers at most 10,000 entries a page, shelters and animals counted", async () => {
    const walked = await pages(path("goodWithChildren=true", 100));
    let first = 0;
    for (const page of walked) {
      // A rare filter never fills a page: each ends where its window does, after a whole unit.
      const last = page.resumes?.unit ?? Number.MAX_SAFE_INTEGER;
      expect(page.resumes?.id ?? Number.MAX_SAFE_INTEGER).toBe(Number.MAX_SAFE_INTEGER);
      // The units it covers, and the next one, which its window may have begun.
      expect(entriesOf(first, last + 1)).toBeLessThanOrEqual(SEARCH_WINDOW);
      first = last + 1;
    }
    expect(first).toBeGreaterThan(0);
  });

  it.each([
    ["goodWithDogs=true", 50, (animal: (typeof animals)[number]) => animal.dogs],
    ["status=available", 100, () => true],
  ])(
    "never skips or repeats an animal with %s, limit %i, pages ending full or at their window",
    async (filter, limit, keep) => {
      const walked = await pages(path(filter, limit));
      for (const page of walked) expect(page.ids.length).toBeLessThanOrEqual(limit);
      expect(walked.flatMap((page) => page.ids)).toEqual(expected(keep));
    },
  );
});

describe("a page of animals near a place in id order, in a circle denser than the window", () => {
  const path = (filter: string, direction: "asc" | "desc") =>
    `/v1/pets?near=${centre.join(",")}&within=50&sort=id&direction=${direction}&limit=100&${filter}`;
  const inIdOrder = (keep: (animal: (typeof animals)[number]) => boolean, direction: string) =>
    animals
      .filter(keep)
      .map((animal) => animal.id)
      .sort((a, b) => (direction === "asc" ? a - b : b - a));

  /** The live animals with ids from `low` to `high`, whatever their shelter: those a page reads by id. */
  async function liveBetween(low: number, high: number) {
    const row = await env.DB.prepare(
      "SELECT count(*) AS n FROM pets WHERE deleted_at IS NULL AND id BETWEEN ?1 AND ?2",
    )
      .bind(low, high)
      .first<{ n: number }>();
    return row?.n ?? 0;
  }

  it.each(["asc", "desc"] as const)(
    "ends early with a Link while a rare filter finds little, follows to exactly the brute-force answer, and examines at most 10,000 entries a page (%s)",
    async (direction) => {
      const walked = await pages(path("goodWithChildren=true", direction));
      expect(walked.length).toBeGreaterThan(1);
      expect(walked[0]?.ids.length).toBeLessThan(100);
      expect(walked[0]?.resumes).toBeDefined();
      expect(walked.flatMap((page) => page.ids)).toEqual(
        inIdOrder((animal) => animal.children, direction),
      );
      // Each page counts the circle's shelters, up to one past half the room they leave of its
      // animals, then reads live animals by id from its cursor through the next one's.
      const counted = Math.floor((SEARCH_WINDOW - SHELTERS) / 2) + 1;
      let from = direction === "asc" ? 0 : Number.MAX_SAFE_INTEGER;
      for (const page of walked) {
        const to = page.resumes?.id ?? (direction === "asc" ? Number.MAX_SAFE_INTEGER : 0);
        const read =
          direction === "asc" ? await liveBetween(from + 1, to) : await liveBetween(to, from - 1);
        expect(SHELTERS + counted + read).toBeLessThanOrEqual(SEARCH_WINDOW);
        from = to;
      }
    },
  );

  it.each([
    ["near alone", "asc", "", () => true],
    [
      "goodWithDogs=true",
      "desc",
      "goodWithDogs=true",
      (animal: (typeof animals)[number]) => animal.dogs,
    ],
  ] as const)(
    "never skips or repeats an animal with %s, %s",
    async (_name, direction, filter, keep) => {
      const walked = await pages(path(filter, direction));
      for (const page of walked) expect(page.ids.length).toBeLessThanOrEqual(100);
      expect(walked.flatMap((page) => page.ids)).toEqual(inIdOrder(keep, direction));
    },
  );
});

describe("a shelter with more animals than a window counts of one", () => {
  const far = [40, 150] as const;

  it("is listed whole, its unit on as many pages as it takes, then the units after it", async () => {
    await insertSheltersNorth(
      owner.row.accountId,
      { city: "Crowd", country: "JP", centre: far },
      4,
      "i * 0.1 + 0.02",
    );
    await env.DB.batch([
      // 250 animals in the nearest shelter, then one in each of the others.
      env.DB.prepare(
        `INSERT INTO pets (name, category_id, status, version, created_at, shelter_id)
         WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 249)
         SELECT 'Kit', 1, 'available', 1, 0, (SELECT min(id) FROM shelters WHERE city = 'Crowd') FROM n
         UNION ALL
         SELECT 'Kit', 1, 'available', 1, 0, id FROM shelters
         WHERE city = 'Crowd' AND id > (SELECT min(id) FROM shelters WHERE city = 'Crowd')`,
      ),
    ]);
    const { results } = await env.DB.prepare(
      `SELECT pets.id FROM pets JOIN shelters ON shelters.id = pets.shelter_id
       WHERE city = 'Crowd' ORDER BY shelters.id, pets.id`,
    ).all<{ id: number }>();
    const walked = await pages(`/v1/pets?near=${far.join(",")}&within=5&limit=100`);
    expect(walked.flatMap((page) => page.ids)).toEqual(results.map((row) => row.id));
    expect(walked[0]?.ids).toHaveLength(100);
  });
});
