import { shelterPlace } from "./bench-shelters.ts";
import { freshName } from "./catalogue-rows.ts";
import { CITY_PLACES } from "./city-places.ts";
import { SHELTER_REPLIES_PATH, WITH_HEADERS_PATH } from "./floor-paths.ts";
import { makeThen, one } from "./flows.ts";
import { andWithHeaders, type BenchRow, sameRequests } from "./row-kinds.ts";

/**
 * The rows of shelters and of finding animals by their profile. The
 * shopper holds the shelters the listing reads, made with SQL before the
 * servers start (bench-shelters.ts); the animals to order, the first every
 * listing meets, carry profiles drawn from their ids (animal-profiles.ts).
 */

/** The adopters' first question: young animals good with children, about an eighth (7/55) of those seeded. */
export const PROFILE_QUERY = "age=young&goodWithChildren=true";

/** Within 50 km of the first city's centre, where shelter 1 and its animals are (bench-shelters.ts). */
export const NEAR_QUERY = (() => {
  const { latitude, longitude } = CITY_PLACES[0] ?? { latitude: 0, longitude: 0 };
  return `near=${latitude},${longitude}&within=50`;
})();

let made = 0;
/** A new shelter's body, in the next city in turn, named as no shelter yet is. */
function newShelterBody(): string {
  const { city, country, latitude, longitude } = shelterPlace(++made);
  return JSON.stringify({
    name: freshName(`${city} shelter`),
    email: "adopt@shelter.example",
    address: { city, country },
    latitude,
    longitude,
  });
}

export const SHELTER_ROWS: readonly BenchRow[] = [
  {
    id: "list-profile",
    label: `GET /v1/pets?${PROFILE_QUERY}`,
    tier: "other",
    caller: "shopper",
    // No index serves the pair: a window of the live animals, both checked on each.
    flow: () => one("GET", `/v1/pets?${PROFILE_QUERY}`, 200),
    floors: andWithHeaders("listPets' window by profile", () =>
      one("GET", `${WITH_HEADERS_PATH}?${PROFILE_QUERY}`, 200),
    ),
  },
  {
    id: "near",
    label: `GET /v1/pets?${NEAR_QUERY}`,
    tier: "other",
    caller: "shopper",
    // The R*Tree's candidates, each shelter's animals by index, nearest first.
    flow: () => one("GET", `/v1/pets?${NEAR_QUERY}`, 200),
    floors: andWithHeaders("listPets' page near a place", () =>
      one("GET", `${WITH_HEADERS_PATH}?${NEAR_QUERY}`, 200),
    ),
  },
  {
    id: "shelters",
    label: "GET /v1/shelters",
    tier: "other",
    caller: "shopper",
    flow: () => one("GET", "/v1/shelters", 200),
    floors: andWithHeaders("listShelters' query", () => one("GET", SHELTER_REPLIES_PATH, 200)),
  },
  {
    id: "shelter-churn",
    label: "POST /v1/shelters + DELETE",
    tier: "other",
    caller: "shopper",
    // Made and deleted in one unit, so the account stays far below its
    // plan's 500 shelters, which each create counts, all run long.
    flow: () => ({
      steps: makeThen(
        { path: "/v1/shelters", body: newShelterBody },
        { method: "DELETE", expectStatus: 204, path: (id) => `/v1/shelters/${id}` },
      ),
    }),
    floors: sameRequests("createShelter's capped batch; removeShelter's read and batch"),
  },
];
