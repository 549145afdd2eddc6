import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { ChangeRequest } from "../../../src/catalogue/changes.ts";
import { editShelter } from "../../../src/shelters/shelter-edits.ts";
import type { NewShelter } from "../../../src/shelters/shelters.schemas.ts";
import { expectError } from "../support/assertions.ts";
import { type SeededKey, seedUnlimitedKey, testServices } from "../support/keys.ts";
import { api, ORIGIN } from "../support/request.ts";
import { madeShelter } from "../support/shelters.ts";

/*
 * Animals and shelters near a place, by example: distances against a
 * haversine computed here, the order in whole 100 m units with ties by id,
 * paging by distance, the cursor bound to its place, the antimeridian and
 * the poles, and a shelter that moves. near-property.test.ts holds random
 * places and radii against a brute-force answer.
 */

const R = 6371.0088;
const rad = (degrees: number) => (degrees * Math.PI) / 180;

/** The great-circle distance in km, by haversine, as the contract defines it. */
function haversine(a: [number, number], b: [number, number]): number {
  const h =
    Math.sin((rad(b[0]) - rad(a[0])) / 2) ** 2 +
    Math.cos(rad(a[0])) * Math.cos(rad(b[0])) * Math.sin((rad(b[1]) - rad(a[1])) / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
}

interface Listed {
  id: number;
  name: string;
  shelterId?: number | null;
  distanceKm: number | null;
}

let owner: SeededKey;
const { db, config } = testServices();

beforeAll(async () => {
  owner = await seedUnlimitedKey();
  // Room for every shelter these tests make.
  await env.DB.prepare("UPDATE accounts SET plan = 'enterprise' WHERE id = ?")
    .bind(owner.row.accountId)
    .run();
});

async function shelterAt(latitude: number, longitude: number, name = "Place") {
  const overrides: Partial<NewShelter> = { latitude, longitude, name };
  return madeShelter(owner.hash, overrides);
}

async function animalIn(shelterId: number, name: string, extra: Record<string, unknown> = {}) {
  const res = await api("/v1/pets", {
    method: "POST",
    key: owner.key,
    json: { name, categoryId: 1, shelterId, ...extra },
  });
  const body = (await res.json()) as Listed;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

/** Every item a listing finds, following Link to the end, and how many pages it took. */
async function walk(path: string): Promise<{ items: Listed[]; pages: number }> {
  const items: Listed[] = [];
  let next: string | null = path;
  let pages = 0;
  while (next !== null && pages < 200) {
    const res = await api(next, { key: owner.key });
    const text = await res.text();
    expect(res.status, `${next}: ${text}`).toBe(200);
    items.push(...(JSON.parse(text) as Listed[]));
    pages++;
    const link = res.headers.get("Link")?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    next = link ? link.slice(ORIGIN.length) : null;
  }
  return { items, pages };
}

/** The first page's next link, as a path. */
async function nextOf(path: string): Promise<string> {
  const res = await api(path, { key: owner.key });
  await res.text();
  expect(res.status).toBe(200);
  const link = res.headers.get("Link")?.match(/^<([^>]+)>; rel="next"$/)?.[1];
  expect(link).toBeDefined();
  return (link ?? "").slice(ORIGIN.length);
}

const unitOf = (km: number) => Math.round(km * 10);

describe("animals near a place", () => {
  // Around Lyon, so no other file's shelters (London by default) come near.
  const here: [number, number] = [45.764, 4.8357];
  const places: [number, number][] = [
    [45.764, 4.8357],
    [45.9, 4.9],
    [45.5, 4.5],
    [45.764, 4.8357],
    [46.2, 5.2],
    [46.5, 6.6],
  ];
  const shelterIds: number[] = [];
  const expected: { id: number; km: number }[] = [];

  beforeAll(async () => {
    for (const [latitude, longitude] of places) {
      shelterIds.push((await shelterAt(latitude, longitude, "Lyon")).id);
    }
    // Two animals in each, interleaved, so equal distances tie on ids from different shelters.
    for (const round of [1, 2]) {
      for (const [i, shelterId] of shelterIds.entries()) {
        const pet = await animalIn(shelterId, `${round === 1 ? "Ruby" : "Jade"} ${i}`, {
          age: round === 1 ? "young" : "adult",
        });
        expected.push({ id: pet.id, km: haversine(here, places[i] ?? here) });
      }
    }
  });

  const within = (km: number) =>
    expected
      .filter((each) => each.km <= km)
      .sort((a, b) => unitOf(a.km) - unitOf(b.km) || a.id - b.id);

  it("lists those within 50 km, nearest first by 100 m units then id, with their distances", async () => {
    const { items } = await walk(`/v1/pets?near=${here.join(",")}`);
    const wanted = within(50);
    expect(wanted.length).toBeGreaterThan(2);
    expect(items.map((item) => item.id)).toEqual(wanted.map((each) => each.id));
    for (const [i, item] of items.entries()) {
      expect(item.distanceKm).toBe(unitOf(wanted[i]?.km ?? -1) / 10);
    }
    // The two shelters at the same place tie: their animals go by id, across shelters.
    expect(items.slice(0, 4).map((item) => item.distanceKm)).toEqual([0, 0, 0, 0]);
  });

  it("reaches as far as within says, and no further", async () => {
    const { items } = await walk(`/v1/pets?near=${here.join(",")}&within=200`);
    expect(items.map((item) => item.id)).toEqual(within(200).map((each) => each.id));
    expect(within(200).length).toBeGreaterThan(within(50).length);
  });

  it("pages by distance without skipping or repeating, and keeps the other filters", async () => {
    const { items, pages } = await walk(`/v1/pets?near=${here.join(",")}&within=200&limit=1`);
    expect(items.map((item) => item.id)).toEqual(within(200).map((each) => each.id));
    expect(pages).toBe(within(200).length);
    const young = await walk(`/v1/pets?near=${here.join(",")}&within=200&age=young&limit=2`);
    const youngIds = new Set(expected.slice(0, places.length).map((each) => each.id));
    expect(young.items.map((item) => item.id)).toEqual(
      within(200)
        .filter((each) => youngIds.has(each.id))
        .map((each) => each.id),
    );
  });

  it("combines with q, id, status and categoryId", async () => {
    const base = `/v1/pets?near=${here.join(",")}&within=200`;
    const rounds = (round: number) =>
      new Set(expected.slice((round - 1) * places.length, round * places.length).map((e) => e.id));
    const second = rounds(2);
    const named = await walk(`${base}&q=jade&limit=2`);
    expect(named.items.map((item) => item.id)).toEqual(
      within(200)
        .filter((each) => second.has(each.id))
        .map((each) => each.id),
    );
    const [first, , third] = within(200);
    const picked = await walk(
      `${base}&id=${third?.id}&id=${first?.id}&status=available&categoryId=1`,
    );
    expect(picked.items.map((item) => item.id)).toEqual([first?.id, third?.id]);
    expect((await walk(`${base}&status=sold`)).items).toEqual([]);
  });

  it("keeps id order with sort=id, either way, distances shown", async () => {
    const ids = within(200)
      .map((each) => each.id)
      .sort((a, b) => a - b);
    const asc = await walk(`/v1/pets?near=${here.join(",")}&within=200&sort=id&limit=3`);
    expect(asc.items.map((item) => item.id)).toEqual(ids);
    expect(asc.items.every((item) => item.distanceKm !== null)).toBe(true);
    const desc = await walk(
      `/v1/pets?near=${here.join(",")}&within=200&sort=id&direction=desc&limit=3`,
    );
    expect(desc.items.map((item) => item.id)).toEqual([...ids].reverse());
  });

  it("refuses a cursor followed with another near or within, or from another listing", async () => {
    const next = await nextOf(`/v1/pets?near=${here.join(",")}&within=200&limit=1`);
    await expectError(
      await api(next.replace("near=45.764", "near=45.765"), { key: owner.key }),
      400,
      "invalid_request",
      { paths: ["cursor"] },
    );
    await expectError(
      await api(next.replace("within=200", "within=201"), { key: owner.key }),
      400,
      "invalid_request",
      { paths: ["cursor"] },
    );
    await expectError(
      await api(next.replace(/&near=[^&]*&within=200/, ""), { key: owner.key }),
      400,
      "invalid_request",
      { paths: ["cursor"] },
    );
    const plain = await nextOf("/v1/pets?limit=1");
    await expectError(
      await api(`${plain}&near=${here.join(",")}`, { key: owner.key }),
      400,
      "invalid_request",
      { paths: ["cursor"] },
    );
  });

  it.each([
    ["within=50", "within"],
    ["sort=distance", "sort"],
    ["near=45,4&direction=desc", "direction"],
    ["near=45,4&sort=distance&direction=desc", "direction"],
    ["near=91,4", "near"],
    ["near=45,181", "near"],
    ["near=45", "near"],
    ["near=45,4&within=0.5", "within"],
    ["near=45,4&within=1001", "within"],
    ["near=45,4&sort=name", "sort"],
  ])("refuses %s", async (query, path) => {
    await expectError(await api(`/v1/pets?${query}`, { key: owner.key }), 400, "invalid_request", {
      paths: [path],
    });
  });

  it("shows no distance outside a listing with near", async () => {
    const res = await api(`/v1/pets?id=${expected[0]?.id}`, { key: owner.key });
    const [pet] = (await res.json()) as Listed[];
    expect(pet?.distanceKm).toBeNull();
  });
});

describe("the antimeridian and the poles", () => {
  it("finds across ±180° around Fiji", async () => {
    const east = await shelterAt(-16.8, 179.95, "Fiji east");
    const west = await shelterAt(-16.8, -179.9, "Fiji west");
    const eastPet = await animalIn(east.id, "Taveuni");
    const westPet = await animalIn(west.id, "Lau");
    const here: [number, number] = [-16.8, 179.99];
    for (const [near, first, second] of [
      [here, westPet, eastPet],
      [[-16.8, -179.99] as [number, number], westPet, eastPet],
    ] as const) {
      const { items } = await walk(`/v1/pets?near=${near.join(",")}&within=30`);
      const wanted = [first, second]
        .map((pet, i) => ({
          id: pet.id,
          km: haversine(near, i === 0 ? [-16.8, -179.9] : [-16.8, 179.95]),
        }))
        .sort((a, b) => unitOf(a.km) - unitOf(b.km) || a.id - b.id);
      expect(items.map((item) => item.id)).toEqual(wanted.map((each) => each.id));
      expect(items.map((item) => item.distanceKm)).toEqual(
        wanted.map((each) => unitOf(each.km) / 10),
      );
    }
  });

  it("finds far in longitude around Svalbard, and across the North Pole", async () => {
    const longyearbyen: [number, number] = [78.2232, 15.6267];
    const far: [number, number] = [80.5, 50];
    const shelter = await shelterAt(far[0], far[1], "Svalbard");
    const pet = await animalIn(shelter.id, "Nordaust");
    const km = haversine(longyearbyen, far);
    // Farther east than a box of within's width in degrees of latitude would reach.
    expect(km).toBeLessThan(1000);
    const { items } = await walk(`/v1/pets?near=${longyearbyen.join(",")}&within=1000`);
    expect(items.map((item) => [item.id, item.distanceKm])).toEqual([[pet.id, unitOf(km) / 10]]);

    const pole = await shelterAt(89.8, 179, "Pole");
    const polePet = await animalIn(pole.id, "Polar");
    const here: [number, number] = [89.9, -1];
    const { items: across } = await walk(`/v1/pets?near=${here.join(",")}&within=50`);
    expect(across.map((item) => [item.id, item.distanceKm])).toEqual([
      [polePet.id, unitOf(haversine(here, [89.8, 179])) / 10],
    ]);
  });
});

describe("a shelter that moves", () => {
  it("takes its animals to its new place at once", async () => {
    const shelter = await shelterAt(-33.8688, 151.2093, "Sydney");
    const pet = await animalIn(shelter.id, "Wombat");
    expect((await walk("/v1/pets?near=-33.87,151.21&within=5")).items.map((i) => i.id)).toEqual([
      pet.id,
    ]);
    const request: ChangeRequest = {
      id: shelter.id,
      changer: { kind: "key", apiKeyHash: owner.hash, operatorEmail: config.operatorEmail },
      accepted: undefined,
    };
    const moved = await editShelter(db, request, { latitude: -37.8136, longitude: 144.9631 });
    expect(moved.kind).toBe("edited");
    expect((await walk("/v1/pets?near=-33.87,151.21&within=5")).items).toEqual([]);
    const { items } = await walk("/v1/pets?near=-37.81,144.96&within=5");
    expect(items.map((item) => [item.id, item.distanceKm])).toEqual([
      [pet.id, unitOf(haversine([-37.81, 144.96], [-37.8136, 144.9631])) / 10],
    ]);
  });
});
