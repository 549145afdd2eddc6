import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SEARCH_WINDOW } from "../../../src/pets/pet-finders.ts";
import { type SeededKey, seedUnlimitedKey } from "../support/keys.ts";
import { api, ORIGIN } from "../support/request.ts";

/*
 * One page of a near listing examines at most 10,000 entries, shelters and
 * animals counted. A circle dense enough holds more: the page then ends at
 * the window's edge, with a Link to go on, and following it never skips.
 */

let owner: SeededKey;
const centre = [-20, -130] as const;

/**
 * `count` shelters due north of the centre, a metre apart and in id order
 * nearest first, the last of them in `lastCountry`, the others in FR.
 */
async function seedShelters(count: number, lastCountry: string): Promise<number> {
  const placed = await env.DB.prepare(
    `INSERT INTO shelters (account_id, name, email, city, country, latitude, longitude, created_at)
     WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?2 - 1)
     SELECT ?1, 'Shelter ' || i, 'shelter@example.com', 'Atoll',
       CASE WHEN i = ?2 - 1 THEN ?3 ELSE 'FR' END, ?4 + i * 0.00001, ?5, 0 FROM n`,
  )
    .bind(owner.row.accountId, count, lastCountry, centre[0], centre[1])
    .run();
  await env.DB.prepare(
    `INSERT INTO shelter_places (id, min_lat, max_lat, min_lon, max_lon, latitude, longitude)
     SELECT id, latitude, latitude, longitude, longitude, latitude, longitude FROM shelters WHERE city = 'Atoll'`,
  ).run();
  return placed.meta.changes;
}

/** Every page from `path` on: each page's ids, as long as a Link goes on. */
async function pages(path: string): Promise<number[][]> {
  const found: number[][] = [];
  let next: string | null = path;
  while (next !== null && found.length < 10) {
    const res = await api(next, { key: owner.key });
    const text = await res.text();
    expect(res.status, `${next}: ${text}`).toBe(200);
    found.push((JSON.parse(text) as { id: number }[]).map((item) => item.id));
    const link = res.headers.get("Link")?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    next = link ? link.slice(ORIGIN.length) : null;
  }
  return found;
}

beforeAll(async () => {
  owner = await seedUnlimitedKey();
  await env.DB.prepare("UPDATE accounts SET plan = 'enterprise' WHERE id = ?")
    .bind(owner.row.accountId)
    .run();
});

describe("a page of shelters near a place", () => {
  it("examines at most 10,000 shelters, then ends with a Link that finds the rest", async () => {
    expect(await seedShelters(SEARCH_WINDOW + 1, "NZ")).toBe(SEARCH_WINDOW + 1);
    const { id: farthest } = (await env.DB.prepare(
      "SELECT max(id) AS id FROM shelters WHERE country = 'NZ'",
    ).first<{ id: number }>()) ?? { id: 0 };
    for (const sort of ["distance", "id"]) {
      const path = `/v1/shelters?near=${centre.join(",")}&within=20&country=NZ&sort=${sort}`;
      expect(await pages(path)).toEqual([[], [farthest]]);
    }
  });
});
