import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { Claim } from "../../../src/changes/outcomes.ts";
import { createShelter } from "../../../src/shelters/shelter-changes.queries.ts";
import type { NewShelter, Shelter } from "../../../src/shelters/shelters.schemas.ts";
import { testServices } from "./keys.ts";

/** A shelter's body with every required field, in London unless told otherwise. */
export function newShelter(overrides: Partial<NewShelter> = {}): NewShelter {
  return {
    name: "Happy Tails Rescue",
    email: "hello@happytails.example",
    address: { city: "London", country: "GB" },
    latitude: 51.5072,
    longitude: -0.1276,
    ...overrides,
  };
}

/** Adds a shelter for the key with this hash through the shelters' change, or says why not. */
export async function addShelter(
  apiKeyHash: string,
  overrides: Partial<NewShelter> = {},
  claim?: Claim,
) {
  return createShelter(
    testServices().db,
    newShelter(overrides),
    { owner: { kind: "key", apiKeyHash }, now: Date.now() },
    claim,
  );
}

/** Adds a shelter and insists it worked, so arrange steps fail loudly. */
export async function madeShelter(
  apiKeyHash: string,
  overrides: Partial<NewShelter> = {},
): Promise<Shelter> {
  const outcome = await addShelter(apiKeyHash, overrides);
  expect(outcome.kind, JSON.stringify(outcome)).toBe("made");
  if (outcome.kind !== "made") throw new Error("the shelter was not added");
  return outcome.body;
}

/** Kilometres of latitude per degree, on the sphere the service measures distances on. */
const DEGREES_PER_KM = 180 / Math.PI / 6371.0088;

/**
 * `count` shelters of one account in `city` due north of `centre`, each
 * `kmNorth` away (an SQL expression of its number `i`, from 0), written
 * with their places in a few statements: the crowds the near listings are
 * tested on, too many to make one by one.
 */
export async function insertSheltersNorth(
  accountId: number,
  place: { city: string; country: string; centre: readonly [number, number] },
  count: number,
  kmNorth: string,
): Promise<void> {
  const [latitude, longitude] = place.centre;
  await env.DB.prepare(
    `INSERT INTO shelters (account_id, name, email, city, country, latitude, longitude, created_at)
     WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?2 - 1)
     SELECT ?1, 'Shelter ' || i, 'shelter@example.com', ?6, ?7, ?3 + (${kmNorth}) * ?4, ?5, 0 FROM n`,
  )
    .bind(accountId, count, latitude, DEGREES_PER_KM, longitude, place.city, place.country)
    .run();
  await env.DB.prepare(
    `INSERT INTO shelter_places (id, min_lat, max_lat, min_lon, max_lon, latitude, longitude)
     SELECT id, latitude, latitude, longitude, longitude, latitude, longitude FROM shelters WHERE city = ?1`,
  )
    .bind(place.city)
    .run();
}
