import { encodeCursor } from "../../src/api/cursor.ts";
import { buildTargets, type FloorName, type Target } from "./measure.ts";
import { createMix } from "./mix.ts";
import { lastPageAfterId, type PetStatus } from "./pets-table.ts";
import { newPetBody } from "./seed.ts";

export interface Origins {
  api: string;
  /** The fixture with the real routes but no key and no limiter. */
  noAuth: string;
  /** The DO call + D1 floor fixture of the default run. */
  floor: string;
}

const NO_AUTH = "floor: validation + D1 (no auth, no limiter)";
const PAGE = 20;
/** The rare status: its listing must walk the (status, id) index, not scan the table. */
const RARE_STATUS: PetStatus = "pending";
const json = { "Content-Type": "application/json" };
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** The default run's DO call + D1 SELECT floor, the same target here. */
function doFloorRead(origins: Origins, key: string): Target {
  const target = buildTargets(origins.floor, origins.api, key).find((t) => t.isFloor === "read");
  if (!target) throw new Error("the default targets lost their read floor");
  return target;
}

type Page = "first" | "last";

/** The four listings at every size: first and last page, without and with the rare status. */
const LISTINGS: { status?: PetStatus; page: Page }[] = [
  { page: "first" },
  { page: "last" },
  { status: RARE_STATUS, page: "first" },
  { status: RARE_STATUS, page: "last" },
];

function listing(
  api: { origin: string; key: string },
  size: number,
  { status, page }: { status?: PetStatus; page: Page },
): Target {
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (status) query.set("status", status);
  // With a page or less of matches, the last page is the first: it has no cursor.
  const afterId = page === "last" ? lastPageAfterId(size, PAGE, status) : 0;
  if (afterId > 0) query.set("cursor", encodeCursor(afterId));
  const shown = `/v1/pets?${status ? `status=${status}&` : ""}limit=${PAGE}`;
  return {
    id: `list${status ? "-status" : ""}-${page}`,
    label: `GET ${shown}, ${page} page`,
    origin: api.origin,
    method: "GET",
    path: `/v1/pets?${query}`,
    expectStatus: 200,
    headers: bearer(api.key),
  };
}

/** A second API whose table stays at the first size, with a key of its own. */
export interface FirstSizeApi {
  origin: string;
  key: string;
  size: number;
}

/**
 * The four listings at one table size, first and last page with and without
 * the rare status, beside the no-auth listing of the first page. At the
 * first size they are held to that listing, with the DO + D1 floor in the
 * same rounds. At a larger size each is held to the same listing on a second
 * API whose table stays at the first size, loaded right beside it, so "10⁶
 * against 10³" compares two loads seconds apart rather than two phases
 * minutes apart.
 */
export function listingTargets(
  origins: Origins,
  key: string,
  size: number,
  firstSize?: FirstSizeApi,
): Target[] {
  const noAuth: Target = {
    id: "no-auth-list",
    label: `${NO_AUTH}: GET /v1/pets?limit=${PAGE}`,
    isFloor: "no-auth-list",
    origin: origins.noAuth,
    method: "GET",
    path: `/v1/pets?limit=${PAGE}`,
    expectStatus: 200,
  };
  const api = { origin: origins.api, key };
  if (!firstSize) {
    const listings = LISTINGS.map(
      (shape): Target => ({
        ...listing(api, size, shape),
        floor: "no-auth-list",
      }),
    );
    return [noAuth, doFloorRead(origins, key), ...listings];
  }
  const animals = firstSize.size.toLocaleString("en-US");
  const pairs = LISTINGS.map((shape): Target[] => {
    const target = listing(api, size, shape);
    const floor: FloorName = `first-size-${target.id}`;
    const twin = listing(firstSize, firstSize.size, shape);
    return [
      { ...twin, id: floor, label: `${twin.label}, at ${animals} animals`, isFloor: floor },
      { ...target, floor },
    ];
  });
  return [noAuth, ...pairs.flat()];
}

/**
 * Get-one and create with one key against the same routes without auth:
 * what a template without the key check and the limiter answers.
 */
export function endpointTargets(origins: Origins, key: string, largestId: number): Target[] {
  const pathFor = (n: number) => `/v1/pets/${(n % largestId) + 1}`;
  const body = newPetBody(0);
  return [
    {
      id: "no-auth-get",
      label: `${NO_AUTH}: GET /v1/pets/{id}`,
      isFloor: "no-auth-get",
      origin: origins.noAuth,
      method: "GET",
      path: "/v1/pets/1",
      expectStatus: 200,
      pathFor,
    },
    {
      id: "no-auth-create",
      label: `${NO_AUTH}: POST /v1/pets`,
      isFloor: "no-auth-create",
      origin: origins.noAuth,
      method: "POST",
      path: "/v1/pets",
      expectStatus: 201,
      headers: json,
      body,
    },
    {
      id: "get",
      label: "GET /v1/pets/{id}",
      floor: "no-auth-get",
      origin: origins.api,
      method: "GET",
      path: "/v1/pets/1",
      expectStatus: 200,
      headers: bearer(key),
      pathFor,
    },
    {
      id: "create",
      label: "POST /v1/pets",
      floor: "no-auth-create",
      origin: origins.api,
      method: "POST",
      path: "/v1/pets",
      expectStatus: 201,
      headers: { ...bearer(key), ...json },
      body,
    },
  ];
}

/** A mix target: probes with a plain first-page listing, then sends the mix. */
function mixTarget(
  base: Omit<Target, "method" | "path" | "expectStatus" | "nextRequest">,
  keys: string[],
  largestId: number,
): Target {
  return {
    ...base,
    method: "GET",
    path: `/v1/pets?limit=${PAGE}`,
    ...(keys[0] ? { headers: bearer(keys[0]) } : {}),
    expectStatus: [200, 201],
    nextRequest: createMix({ keys, largestId }),
  };
}

/** "1 key", "10,000 keys". */
export function keysPhrase(count: number): string {
  return `${count.toLocaleString("en-US")} key${count === 1 ? "" : "s"}`;
}

/**
 * The realistic mix from these keys in turn, and the same mix without auth.
 * Given the keys of the count measured before (100 keys before 10,000), the
 * mix from those is this mix's floor, loaded right beside it in every round,
 * so "10,000 keys against 100" compares two loads seconds apart rather than
 * two phases minutes apart; the mix without auth then loads alone, as the
 * chart's floor line.
 */
export function mixTargets(
  origins: Origins,
  keys: string[],
  largestId: number,
  fewerKeys?: string[],
): Target[] {
  const fewer: FloorName = "mix-fewer-keys";
  return [
    mixTarget(
      {
        id: "no-auth-mix",
        label: `${NO_AUTH}: mix`,
        isFloor: "no-auth-mix",
        origin: origins.noAuth,
      },
      [],
      largestId,
    ),
    ...(fewerKeys
      ? [
          mixTarget(
            {
              id: fewer,
              label: `mix from ${keysPhrase(fewerKeys.length)}`,
              isFloor: fewer,
              origin: origins.api,
            },
            fewerKeys,
            largestId,
          ),
        ]
      : []),
    mixTarget(
      {
        id: "mix",
        label: `mix from ${keysPhrase(keys.length)}`,
        floor: fewerKeys ? fewer : "no-auth-mix",
        origin: origins.api,
      },
      keys,
      largestId,
    ),
  ];
}
