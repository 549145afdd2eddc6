import { encodeCursor } from "../../src/api/cursor.ts";
import { YES_NO_FIELDS } from "../../src/pets/pet-profile.schemas.ts";
import { SEARCHED_BREED } from "./animal-profiles.ts";
import { type Flow, one } from "./flows.ts";
import type { Target } from "./measure.ts";
import { createMix } from "./mix.ts";
import { SEARCHED_NAME } from "./pet-names.ts";
import { lastPageAfterId, type PetStatus } from "./pets-table.ts";
import { newPetBody } from "./rows.ts";

export interface Origins {
  api: string;
  /** The bare floor Worker of the default run, answering the same paths. */
  floor: string;
}

/** A listing's page: the limit every scale listing asks for. */
export const PAGE = 20;
/** The rare status: its listing must walk the (status, id) index, not scan the table. */
const RARE_STATUS: PetStatus = "pending";
/** The header that sends a key. */
export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const onFloor = (label: string) => `floor: ${label}`;

type Page = "first" | "last";

/** The four listings at every size: first and last page, without and with the rare status. */
const LISTINGS: { status?: PetStatus; page: Page }[] = [
  { page: "first" },
  { page: "last" },
  { status: RARE_STATUS, page: "first" },
  { status: RARE_STATUS, page: "last" },
];

/** One listing at a table size, on a server, with its key if it takes one. */
function listing(
  server: { origin: string; key?: string },
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
    origin: server.origin,
    ...(server.key === undefined ? {} : { headers: bearer(server.key) }),
    flow: one("GET", `/v1/pets?${query}`, 200),
  };
}

/**
 * The finders' first pages, each a full page at every size from 10³ on, as
 * the grown table makes them (pets-table.ts): a given name (5% of the
 * animals), twenty animals by id among the first thousand, a category
 * (a seventh), and a rarer pair, `available` (9%) in two categories of
 * seven (2.6%, some 26 animals in a thousand).
 */
const FINDERS: { id: string; label: string; query: string }[] = [
  { id: "search", label: "q", query: `q=${SEARCHED_NAME.toLowerCase()}` },
  {
    id: "by-id",
    label: "20 ids",
    query: Array.from({ length: PAGE }, (_, i) => `id=${(i + 1) * 50 - 13}`).join("&"),
  },
  { id: "category", label: "categoryId", query: "categoryId=3" },
  {
    id: "status-category",
    label: "status and categoryId",
    query: "status=available&categoryId=2&categoryId=5",
  },
];

/**
 * Each profile filter alone, its first page a full one at 10³ animals in
 * 10 shelters as at 10⁶ in 10⁴ (animal-profiles.ts gives each its share):
 * a shelter's hundred animals, a breed of thirteen, an age of five, a
 * size of seven, a sex of two, and each yes/no (from 3/29 with special
 * needs to 24/31 spayed or neutered). The first three walk an index; a
 * breed the search index; the others a window of the live animals.
 */
export const PROFILE_FINDERS: { id: string; label: string; query: string }[] = [
  { id: "profile-shelter", label: "shelterId", query: "shelterId=3" },
  { id: "profile-breed", label: "breed", query: `breed=${SEARCHED_BREED.toLowerCase()}` },
  { id: "profile-age", label: "age", query: "age=young" },
  { id: "profile-size", label: "size", query: "size=small" },
  { id: "profile-sex", label: "sex", query: "sex=female" },
  ...YES_NO_FIELDS.map((field) => ({
    id: `profile-${field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`,
    label: field,
    query: `${field}=true`,
  })),
];

/** What a profile finder's first page at the largest size is held to: at least this share of the first size's requests a second. */
export const PROFILE_TARGET = 0.85;

/** A finder's first page on a server, with its key if it takes one. */
function finder(server: { origin: string; key?: string }, shape: (typeof FINDERS)[number]): Target {
  return {
    id: `list-${shape.id}`,
    label: `GET /v1/pets by ${shape.label}, first page`,
    origin: server.origin,
    ...(server.key === undefined ? {} : { headers: bearer(server.key) }),
    flow: one("GET", `/v1/pets?${shape.query}&limit=${PAGE}`, 200),
  };
}

/** A second API whose table stays at the first size, with a key of its own. */
export interface FirstSizeApi {
  origin: string;
  key: string;
  size: number;
}

/** The same target on the floor, without a key, as a floor under `id`. */
function onTheFloor(target: Target, origins: Origins, id = `floor-${target.id}`): Target {
  const { headers, ...rest } = target;
  return { ...rest, id, label: onFloor(target.label), isFloor: true, origin: origins.floor };
}

/**
 * The four listings at one table size, first and last page with and without
 * the rare status, and with `finders`, the finders' first pages, the
 * profile's filters' too. At the
 * first size each listing is held to the same listing on the floor, loaded
 * right beside it. At a larger size each is held to the same listing on a
 * second API whose table stays at the first size, loaded right beside it,
 * so "10⁶ against 10³" compares two loads seconds apart rather than two
 * phases minutes apart.
 */
export function listingTargets(
  origins: Origins,
  key: string,
  size: number,
  firstSize?: FirstSizeApi,
  { finders = false } = {},
): Target[] {
  const api = { origin: origins.api, key };
  if (!firstSize) {
    return LISTINGS.flatMap((shape) => {
      const target = listing(api, size, shape);
      const floor = onTheFloor(target, origins);
      return [floor, { ...target, floors: [floor.id] }];
    });
  }
  return [
    ...LISTINGS.flatMap((shape) =>
      besideFirstSize(
        firstSize,
        listing(api, size, shape),
        listing(firstSize, firstSize.size, shape),
      ),
    ),
    ...(finders
      ? [...FINDERS, ...PROFILE_FINDERS].flatMap((shape) =>
          besideFirstSize(firstSize, finder(api, shape), finder(firstSize, shape)),
        )
      : []),
  ];
}

/**
 * A target at the larger size and its twin on the first size's API, the
 * twin as the floor the target is held to (`first-size-` and the target's id).
 */
export function besideFirstSize(firstSize: FirstSizeApi, target: Target, twin: Target): Target[] {
  const id = `first-size-${target.id}`;
  const animals = firstSize.size.toLocaleString("en-US");
  return [
    { ...twin, id, label: `${twin.label}, at ${animals} animals`, isFloor: true },
    { ...target, floors: [id] },
  ];
}

/** Gets walking through the animals 1 … largestId. */
function gets(largestId: number): Flow {
  let n = 0;
  return {
    steps: [
      {
        method: "GET",
        expectStatus: 200,
        request: () => ({ path: `/v1/pets/${(n++ % largestId) + 1}` }),
      },
    ],
  };
}

/** Get-one and create with one key, each held to the same requests on the floor. */
export function endpointTargets(origins: Origins, key: string, largestId: number): Target[] {
  const api = { origin: origins.api, headers: bearer(key) };
  const get: Target = { id: "get", label: "GET /v1/pets/{id}", ...api, flow: gets(largestId) };
  const create: Target = {
    id: "create",
    label: "POST /v1/pets",
    ...api,
    flow: one("POST", "/v1/pets", 201, newPetBody(0)),
  };
  const floors = [
    onTheFloor({ ...get, flow: gets(largestId) }, origins),
    onTheFloor(create, origins),
  ];
  return [...floors, { ...get, floors: ["floor-get"] }, { ...create, floors: ["floor-create"] }];
}

/** A mix target on a server, its requests from these keys in turn (none: no key). */
function mixTarget(base: Omit<Target, "mix">, keys: string[], largestId: number): Target {
  return { ...base, mix: { next: createMix({ keys, largestId }), statuses: [200, 201] } };
}

/** "1 key", "10,000 keys". */
export function keysPhrase(count: number): string {
  return `${count.toLocaleString("en-US")} key${count === 1 ? "" : "s"}`;
}

/**
 * The realistic mix from these keys in turn, and the same mix on the floor.
 * Given the keys of the count measured before (100 keys before 10,000), the
 * mix from those is this mix's floor, loaded right beside it in every round,
 * so "10,000 keys against 100" compares two loads seconds apart rather than
 * two phases minutes apart; the mix on the floor then loads alone, as the
 * chart's floor line.
 */
export function mixTargets(
  origins: Origins,
  keys: string[],
  largestId: number,
  fewerKeys?: string[],
): Target[] {
  const fewer = "mix-fewer-keys";
  const floor = "floor-mix";
  return [
    mixTarget(
      { id: floor, label: onFloor("mix"), isFloor: true, origin: origins.floor },
      [],
      largestId,
    ),
    ...(fewerKeys
      ? [
          mixTarget(
            {
              id: fewer,
              label: `mix from ${keysPhrase(fewerKeys.length)}`,
              isFloor: true,
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
        floors: [fewerKeys ? fewer : floor],
        origin: origins.api,
      },
      keys,
      largestId,
    ),
  ];
}
