import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { EARTH_RADIUS_KM } from "../../../src/shelters/near.queries.ts";
import { expectError } from "../support/assertions.ts";
import { type SeededKey, seedUnlimitedKey } from "../support/keys.ts";
import { api, ORIGIN } from "../support/request.ts";
import { madeShelter } from "../support/shelters.ts";

/*
 * Shelters near a place: the same near, within and sort as the animals'
 * listing, with the shelters' own finders.
 */

const rad = (degrees: number) => (degrees * Math.PI) / 180;
function haversine(a: readonly [number, number], b: readonly [number, number]): number {
  const h =
    Math.sin((rad(b[0]) - rad(a[0])) / 2) ** 2 +
    Math.cos(rad(a[0])) * Math.cos(rad(b[0])) * Math.sin((rad(b[1]) - rad(a[1])) / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

interface Listed {
  id: number;
  name: string;
  distanceKm: number | null;
}

let owner: SeededKey;
const porto = [41.1579, -8.6291] as const;
const made: { id: number; name: string; km: number }[] = [];

beforeAll(async () => {
  owner = await seedUnlimitedKey();
  await env.DB.prepare("UPDATE accounts SET plan = 'enterprise' WHERE id = ?")
    .bind(owner.row.accountId)
    .run();
  for (const [name, latitude, longitude, country] of [
    ["Ribeira Rescue", 41.1406, -8.6111, "PT"],
    ["Matosinhos Friends", 41.1821, -8.6891, "PT"],
    ["Braga Paws", 41.5454, -8.4265, "PT"],
    ["Vigo Rescue", 42.2406, -8.7207, "ES"],
    ["Gaia Rescue", 41.1239, -8.6118, "PT"],
  ] as const) {
    const shelter = await madeShelter(owner.hash, {
      name,
      latitude,
      longitude,
      address: { city: name, country },
    });
    made.push({ id: shelter.id, name, km: haversine(porto, [latitude, longitude]) });
  }
});

const unitOf = (km: number) => Math.round(km * 10);
const nearest = (km: number, keep: (name: string) => boolean = () => true) =>
  made
    .filter((each) => each.km <= km && keep(each.name))
    .sort((a, b) => unitOf(a.km) - unitOf(b.km) || a.id - b.id);

async function walk(path: string): Promise<Listed[]> {
  const items: Listed[] = [];
  let next: string | null = path;
  for (let pages = 0; next !== null && pages < 50; pages++) {
    const res = await api(next, { key: owner.key });
    const text = await res.text();
    expect(res.status, `${next}: ${text}`).toBe(200);
    items.push(...(JSON.parse(text) as Listed[]));
    const link = res.headers.get("Link")?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    next = link ? link.slice(ORIGIN.length) : null;
  }
  return items;
}

describe("shelters near a place", () => {
  it("lists those within the distance, nearest first, with their distances, a page at a time", async () => {
    for (const limit of [1, 2, 20]) {
      const items = await walk(`/v1/shelters?near=${porto.join(",")}&within=100&limit=${limit}`);
      expect(items.map((item) => [item.id, item.distanceKm])).toEqual(
        nearest(100).map((each) => [each.id, unitOf(each.km) / 10]),
      );
    }
    expect(nearest(100).length).toBe(4);
    const within50 = await walk(`/v1/shelters?near=${porto.join(",")}`);
    expect(within50.map((item) => item.id)).toEqual(nearest(50).map((each) => each.id));
  });

  it("combines with q and country, and keeps id order with sort=id", async () => {
    const rescues = await walk(`/v1/shelters?near=${porto.join(",")}&within=200&q=rescue&limit=1`);
    expect(rescues.map((item) => item.id)).toEqual(
      nearest(200, (name) => name.includes("Rescue")).map((each) => each.id),
    );
    const spain = await walk(`/v1/shelters?near=${porto.join(",")}&within=200&country=ES`);
    expect(spain.map((item) => item.name)).toEqual(["Vigo Rescue"]);
    const byId = await walk(`/v1/shelters?near=${porto.join(",")}&within=200&sort=id&limit=2`);
    expect(byId.map((item) => item.id)).toEqual(
      nearest(200)
        .map((each) => each.id)
        .sort((a, b) => a - b),
    );
  });

  it("refuses a cursor followed with another within, and within or sort=distance without near", async () => {
    const res = await api(`/v1/shelters?near=${porto.join(",")}&within=100&limit=1`, {
      key: owner.key,
    });
    await res.text();
    const next =
      res.headers
        .get("Link")
        ?.match(/^<([^>]+)>/)?.[1]
        ?.slice(ORIGIN.length) ?? "";
    expect(next).toContain("cursor=");
    await expectError(
      await api(next.replace("within=100", "within=99"), { key: owner.key }),
      400,
      "invalid_request",
      { paths: ["cursor"] },
    );
    await expectError(
      await api("/v1/shelters?within=5", { key: owner.key }),
      400,
      "invalid_request",
      {
        paths: ["within"],
      },
    );
    await expectError(
      await api("/v1/shelters?sort=distance", { key: owner.key }),
      400,
      "invalid_request",
      { paths: ["sort"] },
    );
  });

  it("shows no distance outside a listing with near", async () => {
    const items = await walk(`/v1/shelters?id=${made[0]?.id}`);
    expect(items.map((item) => item.distanceKm)).toEqual([null]);
  });
});
