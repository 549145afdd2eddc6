import { beforeAll, describe, expect, it } from "vitest";
import {
  type CreatedPet,
  createPet,
  expectError,
  expectPet,
  freshIp,
} from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { api, jsonOf, ORIGIN } from "../support/request.ts";

const STATUSES = ["available", "pending", "sold"] as const;
type Status = (typeof STATUSES)[number];

let key: string;
/** Every animal this file made, in creation order; the file's storage starts empty. */
const seeded: CreatedPet[] = [];

beforeAll(async () => {
  ({ key } = await seedKey());
  // 45 animals, statuses interleaved so a filtered page must skip over the others.
  for (let i = 0; i < 45; i++) {
    const status = STATUSES[i % 3] as Status;
    seeded.push(await createPet(key, { name: `Pet ${i}`, categoryId: 1 + (i % 7), status }));
  }
});

async function list(query: string): Promise<{ res: Response; pets: CreatedPet[] }> {
  const res = await api(`/v1/pets${query}`, { key });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const pets = JSON.parse(text) as CreatedPet[];
  expect(Array.isArray(pets)).toBe(true);
  return { res, pets };
}

/** The address in `Link: <…>; rel="next"`, or null on the last page. */
function nextLink(res: Response): string | null {
  const link = res.headers.get("Link");
  if (link === null) return null;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match, link).not.toBeNull();
  return match?.[1] ?? null;
}

/** Follows rel="next" from the first page to the last, as a client would. */
async function walk(query: string): Promise<{ pages: CreatedPet[][]; links: string[] }> {
  const pages: CreatedPet[][] = [];
  const links: string[] = [];
  let path: string | null = `/v1/pets${query}`;
  while (path !== null) {
    const { res, pets } = await list(path.slice("/v1/pets".length));
    pages.push(pets);
    const next = nextLink(res);
    if (next === null) break;
    links.push(next);
    expect(next.startsWith(`${ORIGIN}/v1/pets?`), next).toBe(true);
    path = next.slice(ORIGIN.length);
    expect(pages.length, "runaway paging").toBeLessThan(100);
  }
  return { pages, links };
}

function ids(pets: CreatedPet[]): number[] {
  return pets.map((pet) => pet.id);
}

describe("GET /v1/pets — happy path", () => {
  it("returns a bare array of complete animals in ascending id order", async () => {
    const { res, pets } = await list("?limit=100");
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json\b/);
    pets.forEach(expectPet);
    expect(pets).toEqual(seeded);
  });

  it("returns 20 animals by default, and says more follow", async () => {
    const { res, pets } = await list("");
    expect(pets).toEqual(seeded.slice(0, 20));
    const next = new URL(nextLink(res) ?? "");
    expect(next.searchParams.get("limit")).toBe("20");
  });

  it("honours the limit bounds 1 and 100", async () => {
    const one = await list("?limit=1");
    expect(one.pets).toEqual(seeded.slice(0, 1));
    expect(nextLink(one.res)).not.toBeNull();
    const hundred = await list("?limit=100");
    expect(hundred.pets).toHaveLength(seeded.length);
    expect(nextLink(hundred.res)).toBeNull();
  });

  it.each(STATUSES)("filters by status=%s", async (status) => {
    const { pets } = await list(`?status=${status}&limit=100`);
    expect(pets).toEqual(seeded.filter((pet) => pet.status === status));
  });

  it("pages through a status filter over more than two pages, visiting each match once", async () => {
    const pending = seeded.filter((pet) => pet.status === "pending");
    expect(pending).toHaveLength(15);
    const { pages, links } = await walk("?status=pending&limit=4");
    expect(pages.map((page) => page.length)).toEqual([4, 4, 4, 3]);
    expect(pages.flat()).toEqual(pending);
    expect(new Set(ids(pages.flat())).size).toBe(pending.length);
    for (const link of links) {
      const url = new URL(link);
      expect(url.searchParams.get("status")).toBe("pending");
      expect(url.searchParams.get("limit")).toBe("4");
      expect(url.searchParams.get("cursor")).toBeTruthy();
    }
  });

  it("pages through everything without a filter, visiting each animal once", async () => {
    const { pages } = await walk("?limit=7");
    expect(pages).toHaveLength(7);
    expect(pages.flat()).toEqual(seeded);
  });

  it("gives no Link on a page that ends exactly at the last animal", async () => {
    const { pages, links } = await walk("?status=sold&limit=5");
    expect(pages.map((page) => page.length)).toEqual([5, 5, 5]);
    expect(links).toHaveLength(2);
  });

  it("gives no Link when one page holds every match", async () => {
    const { res, pets } = await list("?status=pending&limit=15");
    expect(pets).toHaveLength(15);
    expect(res.headers.get("Link")).toBeNull();
  });

  it("ignores unknown query parameters, also in the next link", async () => {
    const { res, pets } = await list("?limit=3&colour=brown&page=9");
    expect(pets).toEqual(seeded.slice(0, 3));
    expect(new URL(nextLink(res) ?? "").searchParams.has("colour")).toBe(false);
  });

  it("shows an animal added mid-walk on a later page, not twice", async () => {
    const first = await list("?status=available&limit=10");
    const added = await createPet(key, { name: "Late", categoryId: 5, status: "available" });
    const rest = await walk((nextLink(first.res) ?? "").slice(`${ORIGIN}/v1/pets`.length));
    const all = [...first.pets, ...rest.pages.flat()];
    expect(all.at(-1)).toEqual(added);
    expect(new Set(ids(all)).size).toBe(all.length);
    seeded.push(added);
  });
});

describe("GET /v1/pets — bad input", () => {
  it.each(["0", "101", "2.5", "abc", "-1", "", "1e400"])(
    "refuses limit=%s with 400 invalid_request",
    async (limit) => {
      const res = await api(`/v1/pets?limit=${limit}`, { key });
      await expectError(res, 400, "invalid_request", { paths: ["limit"] });
    },
  );

  it.each(["adopted", "SOLD", ""])("refuses status=%s with 400 invalid_request", async (status) => {
    const res = await api(`/v1/pets?status=${status}`, { key });
    await expectError(res, 400, "invalid_request", { paths: ["status"] });
  });

  it.each([
    ["garbage", "not-a-cursor!!"],
    ["base64 of something else", btoa("hello world")],
    ["a cursor from another version", btoa("p0:5").replace(/=+$/, "")],
    ["a cursor at position zero", btoa("p1:0").replace(/=+$/, "")],
    ["a cursor past 2^53−1", btoa("p1:9007199254740992").replace(/=+$/, "")],
    ["an empty cursor", ""],
  ])("refuses %s as cursor with 400 invalid_request", async (_, cursor) => {
    const res = await api(`/v1/pets?cursor=${encodeURIComponent(cursor)}`, { key });
    await expectError(res, 400, "invalid_request", { paths: ["cursor"] });
  });
});

describe("GET /v1/pets — auth", () => {
  it("refuses a request without a key with 401 and no animals", async () => {
    const res = await api("/v1/pets", { headers: { "CF-Connecting-IP": freshIp() } });
    await expectError(res, 401, "unauthorized");
  });

  it("refuses to follow a next link without a key", async () => {
    const { res } = await list("?limit=1");
    const next = nextLink(res) ?? "";
    const refused = await api(next.slice(ORIGIN.length), {
      headers: { "CF-Connecting-IP": freshIp() },
    });
    await expectError(refused, 401, "unauthorized");
  });

  it("lists the same animals for every key (animals are not per key)", async () => {
    const { key: other } = await seedKey({ account: "other@example.com" });
    const res = await api("/v1/pets?limit=5", { key: other });
    expect(await jsonOf(res)).toEqual(seeded.slice(0, 5));
  });
});
