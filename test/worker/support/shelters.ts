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
