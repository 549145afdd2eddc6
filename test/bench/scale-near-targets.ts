import { CITY_PLACES } from "./city-places.ts";
import { NEAR_ROWS_READ_PATH, NEAR_STRAIGHTFORWARD_PATH, ROWS_READ_HEADER } from "./floor-paths.ts";
import { one } from "./flows.ts";
import type { Target } from "./measure.ts";
import {
  bearer,
  besideFirstSize,
  type FirstSizeApi,
  type Origins,
  PAGE,
  PROFILE_TARGET,
} from "./scale-targets.ts";
import { PROFILE_QUERY } from "./shelter-rows.ts";

/**
 * The pages near a place the scale run loads at the largest size: each
 * beside the same page at the first size, and the animals' page beside the
 * same page computed the straightforward way on the floor.
 */

/**
 * The city the pages are near: Los Angeles, which holds shelter 2 and
 * every 288th after it at 10⁴ shelters (35 within 50 km, seven of them
 * holding young animals), and whose
 * circle the first size's ten shelters are gathered in (the scale run moves
 * them there), so its pages are full at either size: shelter 2's animals
 * are all young, and shelter 7's.
 */
export const NEAR_CITY = (() => {
  const city = CITY_PLACES.find((place) => place.city === "Los Angeles");
  if (!city) throw new Error("no Los Angeles among the cities");
  return city;
})();

/** `near` and `within` 50 km around the city; sorted by distance, the default with `near`. */
const NEAR = `near=${NEAR_CITY.latitude},${NEAR_CITY.longitude}&within=50`;

/** Each near page's rounds: two, so they fit the run's budget beside the other finders. */
const NEAR_ROUNDS = 2;

/** What the pages near the city are held to. */
export const NEAR_TARGETS = {
  /** Each page at the largest size: at least this share of the first size's requests a second, as the profile filters'. */
  firstSize: PROFILE_TARGET,
  /** The animals' page against the straightforward one: at least this many times its requests a second. */
  throughput: 5,
  /** At most this share of its rows read. */
  rowsRead: 0.01,
};

/** The floor's straightforward page, the API's animals' page is held to beside the first size's. */
export const STRAIGHTFORWARD_ID = "near-straightforward";

/** The API's animals' page near the city, held to the straightforward page too. */
export const INDEXED_ID = "list-near";

const PAGES: { id: string; label: string; path: string }[] = [
  { id: INDEXED_ID, label: "GET /v1/pets near", path: `/v1/pets?${NEAR}&limit=${PAGE}` },
  {
    id: "list-near-profile",
    label: "GET /v1/pets near, young and good with children",
    path: `/v1/pets?${NEAR}&${PROFILE_QUERY}&limit=${PAGE}`,
  },
  {
    id: "shelters-near",
    label: "GET /v1/shelters near",
    path: `/v1/shelters?${NEAR}&limit=${PAGE}`,
  },
];

/** The ids of the pages near the city, each held to the same page at the first size. */
export const NEAR_PAGE_IDS = PAGES.map(({ id }) => id);

/**
 * The near pages' first page at the largest size, each beside the same
 * page at the first size, and the animals' beside the straightforward page
 * on the floor too.
 */
export function nearTargets(origins: Origins, key: string, firstSize: FirstSizeApi): Target[] {
  const on = (server: { origin: string; key: string }, page: (typeof PAGES)[number]): Target => ({
    id: page.id,
    label: `${page.label}, first page`,
    origin: server.origin,
    headers: bearer(server.key),
    rounds: NEAR_ROUNDS,
    flow: one("GET", page.path, 200),
  });
  const straightforward: Target = {
    id: STRAIGHTFORWARD_ID,
    label: "floor: the same page near, the straightforward way",
    origin: origins.floor,
    isFloor: true,
    rounds: NEAR_ROUNDS,
    flow: one("GET", `${NEAR_STRAIGHTFORWARD_PATH}?${NEAR}&limit=${PAGE}`, 200),
  };
  return [
    straightforward,
    ...PAGES.flatMap((page) => {
      const [twin, target] = besideFirstSize(
        firstSize,
        on({ origin: origins.api, key }, page),
        on(firstSize, page),
      );
      if (!twin || !target) return [];
      return [
        twin,
        page.id === INDEXED_ID
          ? { ...target, floors: [...(target.floors ?? []), STRAIGHTFORWARD_ID] }
          : target,
      ];
    }),
  ];
}

/** D1's rows read for the animals' first page near the city, the API's way and the straightforward way, on the floor. */
export async function nearRowsRead(floor: string) {
  const rowsRead = async (path: string) => {
    const response = await fetch(`${floor}${path}?${NEAR}&limit=${PAGE}`);
    await response.arrayBuffer();
    const header = response.headers.get(ROWS_READ_HEADER);
    const read = Number(header);
    if (!response.ok || header === null || !Number.isFinite(read)) {
      throw new Error(`${path}: ${response.status}, no ${ROWS_READ_HEADER}`);
    }
    return read;
  };
  return {
    indexed: await rowsRead(NEAR_ROWS_READ_PATH),
    straightforward: await rowsRead(NEAR_STRAIGHTFORWARD_PATH),
  };
}
