import { env } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type SeededKey, seedUnlimitedKey } from "../support/keys.ts";
import { runs as numRuns, seed } from "../support/property.ts";
import { api, ORIGIN } from "../support/request.ts";
import { madeShelter } from "../support/shelters.ts";

/*
 * Animals near a place against a brute-force answer: for random shelters
 * around random centres (the antimeridian and the poles among them), random
 * animals in them, and random places, radii, orders and page sizes, walking
 * the listing to its end gives exactly the animals whose shelter lies within
 * the radius by a haversine computed here over every shelter, in the order
 * asked, each with its distance.
 */

const R = 6371.0088;
const rad = (degrees: number) => (degrees * Math.PI) / 180;
function haversine(a: Place, b: Place): number {
  const h =
    Math.sin((rad(b.latitude) - rad(a.latitude)) / 2) ** 2 +
    Math.cos(rad(a.latitude)) *
      Math.cos(rad(b.latitude)) *
      Math.sin((rad(b.longitude) - rad(a.longitude)) / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
}

interface Place {
  latitude: number;
  longitude: number;
}

interface Animal {
  id: number;
  shelter: number | null;
  deleted: boolean;
  young: boolean;
}

let owner: SeededKey;

beforeAll(async () => {
  owner = await seedUnlimitedKey();
  await env.DB.prepare("UPDATE accounts SET plan = 'enterprise' WHERE id = ?")
    .bind(owner.row.accountId)
    .run();
});

/** A longitude brought back into -180..180. */
const wrap = (longitude: number) => ((((longitude + 180) % 360) + 360) % 360) - 180;
const clampLatitude = (latitude: number) => Math.max(-90, Math.min(90, latitude));

// The antimeridian and the poles as often as anywhere else.
const centre = fc.oneof(
  fc.record({
    latitude: fc.double({ min: -89, max: 89, noNaN: true }),
    longitude: fc.double({ min: -180, max: 180, noNaN: true }),
  }),
  fc.constantFrom(
    { latitude: -17.7, longitude: 179.9 },
    { latitude: 65.5, longitude: -179.8 },
    { latitude: 78.2, longitude: 15.6 },
    { latitude: 89.7, longitude: -120 },
    { latitude: -89.8, longitude: 45 },
  ),
);
/** An offset from the centre: mostly near, so that radii find some. */
const offset = fc.record({
  latitude: fc.double({ min: -4, max: 4, noNaN: true }),
  longitude: fc.double({ min: -12, max: 12, noNaN: true }),
});
const at = (base: Place, by: Place): Place => ({
  latitude: clampLatitude(base.latitude + by.latitude),
  longitude: wrap(base.longitude + by.longitude),
});

const scenario = fc.record({
  centre,
  shelters: fc.array(offset, { minLength: 1, maxLength: 7 }),
  animals: fc.array(
    fc.record({
      shelter: fc.option(fc.nat({ max: 6 }), { nil: null, freq: 6 }),
      deleted: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
      young: fc.boolean(),
    }),
    { maxLength: 20 },
  ),
  walks: fc.array(
    fc.record({
      near: fc.record({
        latitude: fc.double({ min: -1, max: 1, noNaN: true }),
        longitude: fc.double({ min: -2, max: 2, noNaN: true }),
      }),
      // Kilometres to the metre, as a client would write them.
      within: fc.integer({ min: 1000, max: 1_000_000 }).map((metres) => metres / 1000),
      order: fc.constantFrom("distance", "id", "id desc"),
      young: fc.boolean(),
      limit: fc.integer({ min: 1, max: 6 }),
    }),
    { minLength: 2, maxLength: 2 },
  ),
});

/** The shelters, made through their change (so placed in the R*Tree), and the animals written straight in. */
async function writeScene(shelters: Place[], animals: Omit<Animal, "id">[]) {
  await env.DB.batch([
    env.DB.prepare("DELETE FROM pets"),
    env.DB.prepare("DELETE FROM shelter_places"),
    env.DB.prepare("DELETE FROM shelters"),
  ]);
  const ids: number[] = [];
  for (const place of shelters) ids.push((await madeShelter(owner.hash, place)).id);
  const written: Animal[] = [];
  for (const animal of animals) {
    const shelter = animal.shelter === null ? null : (ids[animal.shelter % ids.length] ?? null);
    const row = await env.DB.prepare(
      "INSERT INTO pets (name, category_id, status, version, created_at, deleted_at, shelter_id, age) VALUES ('A', 1, 'available', 1, 0, ?, ?, ?) RETURNING id",
    )
      .bind(animal.deleted ? 1 : null, shelter, animal.young ? "young" : "adult")
      .first<{ id: number }>();
    written.push({ ...animal, id: row?.id ?? 0, shelter });
  }
  return { ids, animals: written };
}

async function walk(path: string, limit: number) {
  const found: [number, number | null][] = [];
  let next: string | null = path;
  for (let pages = 0; next !== null; pages++) {
    expect(pages, "runaway paging").toBeLessThan(200);
    const res = await api(next, { key: owner.key });
    const text = await res.text();
    expect(res.status, `${next}: ${text}`).toBe(200);
    const page = JSON.parse(text) as { id: number; distanceKm: number | null }[];
    expect(page.length).toBeLessThanOrEqual(limit);
    found.push(...page.map((pet): [number, number | null] => [pet.id, pet.distanceKm]));
    const link = res.headers.get("Link")?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    next = link ? link.slice(ORIGIN.length) : null;
  }
  return found;
}

describe(`animals near a place against brute force (seed ${seed}, ${numRuns} runs)`, () => {
  it("walk to exactly the animals within the radius, in the order asked, with their distances", async () => {
    const property = fc.asyncProperty(scenario, async (drawn) => {
      const places = drawn.shelters.map((by) => at(drawn.centre, by));
      const { ids, animals } = await writeScene(places, drawn.animals);
      for (const asked of drawn.walks) {
        // Degrees to six places, as a client would write them.
        const exact = at(drawn.centre, asked.near);
        const near = {
          latitude: Number(exact.latitude.toFixed(6)),
          longitude: Number(exact.longitude.toFixed(6)),
        };
        const km = new Map(ids.map((id, i) => [id, haversine(near, places[i] ?? near)]));
        const unit = (animal: Animal) => Math.round((km.get(animal.shelter ?? 0) ?? 0) * 10);
        const wanted = animals
          .filter(
            (animal) =>
              !animal.deleted &&
              animal.shelter !== null &&
              (km.get(animal.shelter) ?? Infinity) <= asked.within &&
              (!asked.young || animal.young),
          )
          .sort((a, b) =>
            asked.order === "distance"
              ? unit(a) - unit(b) || a.id - b.id
              : asked.order === "id"
                ? a.id - b.id
                : b.id - a.id,
          )
          .map((animal): [number, number | null] => [animal.id, unit(animal) / 10]);
        const query = new URLSearchParams({
          near: `${near.latitude},${near.longitude}`,
          within: String(asked.within),
          limit: String(asked.limit),
        });
        if (asked.order !== "distance") query.set("sort", "id");
        if (asked.order === "id desc") query.set("direction", "desc");
        if (asked.young) query.set("age", "young");
        expect(await walk(`/v1/pets?${query}`, asked.limit), query.toString()).toEqual(wanted);
      }
    });
    await fc.assert(property, { seed, numRuns }).catch((error: unknown) => {
      throw new Error(`near differs from brute force with seed ${seed}: ${String(error)}`);
    });
  }, 180_000);
});
