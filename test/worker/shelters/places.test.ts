import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { ChangeRequest } from "../../../src/catalogue/changes.ts";
import { columnsOf, updateShelter } from "../../../src/shelters/shelter-changes.queries.ts";
import { editShelter, removeShelter } from "../../../src/shelters/shelter-edits.ts";
import { type SeededKey, seedKey, testServices } from "../support/keys.ts";
import { madeShelter } from "../support/shelters.ts";

/**
 * The R*Tree of places is written by each shelter's own change: placed on
 * creation, moved when a change moves the shelter, gone on deletion, and
 * every change's event still emitted whether or not the place moved.
 */

let owner: SeededKey;
const { db, config } = testServices();

beforeAll(async () => {
  owner = await seedKey();
  await env.DB.prepare("UPDATE accounts SET plan = 'enterprise' WHERE id = ?")
    .bind(owner.row.accountId)
    .run();
});

function requestFor(id: number): ChangeRequest {
  return {
    id,
    changer: { kind: "key", apiKeyHash: owner.hash, operatorEmail: config.operatorEmail },
    accepted: undefined,
  };
}

async function placeOf(id: number) {
  return env.DB.prepare(
    "SELECT min_lat AS minLat, max_lat AS maxLat, min_lon AS minLon, max_lon AS maxLon, latitude, longitude FROM shelter_places WHERE id = ?",
  )
    .bind(id)
    .first<{
      minLat: number;
      maxLat: number;
      minLon: number;
      maxLon: number;
      latitude: number;
      longitude: number;
    }>();
}

async function eventTypes(id: number) {
  const { results } = await env.DB.prepare(
    "SELECT type FROM events WHERE type LIKE 'shelter.%' AND json_extract(data, '$.id') = ? ORDER BY seq",
  )
    .bind(id)
    .all<{ type: string }>();
  return results.map((row) => row.type);
}

/** The place's box holds the point, within the 32-bit floats the R*Tree keeps, and the place holds the point exactly. */
function expectBoxAround(
  place: Awaited<ReturnType<typeof placeOf>>,
  latitude: number,
  longitude: number,
) {
  expect(place).not.toBeNull();
  if (!place) return;
  expect(place.minLat).toBeLessThanOrEqual(latitude);
  expect(place.maxLat).toBeGreaterThanOrEqual(latitude);
  expect(place.minLon).toBeLessThanOrEqual(longitude);
  expect(place.maxLon).toBeGreaterThanOrEqual(longitude);
  expect(place.maxLat - place.minLat).toBeLessThan(1e-4);
  expect(place.maxLon - place.minLon).toBeLessThan(1e-4);
  expect([place.latitude, place.longitude]).toEqual([latitude, longitude]);
}

describe("shelters' places", () => {
  it("places a new shelter, moves it with the shelter, and takes it away on deletion", async () => {
    const shelter = await madeShelter(owner.hash, { latitude: 48.8566, longitude: 2.3522 });
    expectBoxAround(await placeOf(shelter.id), 48.8566, 2.3522);

    const renamed = await editShelter(db, requestFor(shelter.id), { name: "Same Place" });
    expect(renamed.kind).toBe("edited");
    expectBoxAround(await placeOf(shelter.id), 48.8566, 2.3522);

    const moved = await editShelter(db, requestFor(shelter.id), {
      latitude: -33.8688,
      longitude: 151.2093,
    });
    expect(moved.kind).toBe("edited");
    expectBoxAround(await placeOf(shelter.id), -33.8688, 151.2093);

    expect((await removeShelter(db, requestFor(shelter.id), Date.now())).kind).toBe("deleted");
    expect(await placeOf(shelter.id)).toBeNull();
    expect(await eventTypes(shelter.id)).toEqual([
      "shelter.created",
      "shelter.updated",
      "shelter.updated",
      "shelter.deleted",
    ]);
  });

  it("leaves the place alone when a change loses its race", async () => {
    const shelter = await madeShelter(owner.hash, { latitude: 10, longitude: 20 });
    // Another change moves it first; the change decided at the old version writes nothing.
    await env.DB.prepare("UPDATE shelters SET version = version + 1 WHERE id = ?")
      .bind(shelter.id)
      .run();
    const { shelter: after } = await updateShelter(db, {
      id: shelter.id,
      version: 1,
      columns: columnsOf({ ...shelter, latitude: 11, longitude: 21 }),
    });
    expect(after).toBeUndefined();
    expectBoxAround(await placeOf(shelter.id), 10, 20);
  });
});
