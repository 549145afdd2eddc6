import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { removeShelter } from "../../../src/shelters/shelter-edits.ts";
import { expectError, expectPet, UNKNOWN_PROFILE } from "../support/assertions.ts";
import { type SeededKey, seedKey, testServices } from "../support/keys.ts";
import { type ApiRequestInit, api, jsonOf, ORIGIN } from "../support/request.ts";
import { madeShelter } from "../support/shelters.ts";

/*
 * The animals' profile: on create and in merge patches (null clears, 400
 * for a required field), the shelter's ownership, what pet.updated names,
 * and the listing's profile filters alone and combined, paged to the end.
 */

let owner: SeededKey;
let other: SeededKey;
let shelterId: number;
let othersShelterId: number;

const PROFILE = {
  shelterId: 0,
  breed: "Labrador Retriever",
  age: "young",
  sex: "male",
  size: "large",
  goodWithChildren: true,
  goodWithDogs: false,
  goodWithCats: null,
  houseTrained: true,
  specialNeeds: false,
  spayedNeutered: true,
  description: "Loves long walks.\nAnd sofas.",
};

beforeAll(async () => {
  owner = await seedKey();
  other = await seedKey();
  await env.DB.prepare("UPDATE accounts SET plan = 'enterprise' WHERE id = ?")
    .bind(owner.row.accountId)
    .run();
  shelterId = (await madeShelter(owner.hash)).id;
  othersShelterId = (await madeShelter(other.hash)).id;
});

const create = (body: unknown, init: ApiRequestInit = {}) =>
  api("/v1/pets", { method: "POST", key: owner.key, json: body, ...init });
const patch = (id: number, body: unknown, init: ApiRequestInit = {}) =>
  api(`/v1/pets/${id}`, { method: "PATCH", key: owner.key, json: body, ...init });

async function created(
  body: Record<string, unknown>,
): Promise<{ id: number } & Record<string, unknown>> {
  const res = await create({ name: "Profiled", categoryId: 1, ...body });
  const pet = await jsonOf<{ id: number } & Record<string, unknown>>(res);
  expect(res.status, JSON.stringify(pet)).toBe(201);
  return pet;
}

async function updatedEvents(id: number) {
  const { results } = await env.DB.prepare(
    "SELECT changes FROM events WHERE type = 'pet.updated' AND json_extract(data, '$.id') = ? ORDER BY seq",
  )
    .bind(id)
    .all<{ changes: string }>();
  return results.map((row) => JSON.parse(row.changes) as string[]);
}

describe("an animal's profile", () => {
  it("is taken on create, every key in the contract's order, and read back alike", async () => {
    const pet = await created({ ...PROFILE, shelterId });
    expectPet(pet);
    expect(pet).toMatchObject({ ...PROFILE, shelterId, distanceKm: null });
    const fetched = await api(`/v1/pets/${pet.id}`, { key: other.key });
    expect(await fetched.json()).toEqual(pet);
  });

  it("is unknown for SPEC.md's three-field body, and for nulls sent on create", async () => {
    const plain = await created({ status: "pending" });
    expect(plain).toMatchObject(UNKNOWN_PROFILE);
    const nulls = await created({ breed: null, age: null, shelterId: null });
    expect(nulls).toMatchObject(UNKNOWN_PROFILE);
  });

  it("names a shelter of the caller's own: another's is 403 not_owner, an unknown or deleted one 422", async () => {
    const before = await env.DB.prepare("SELECT count(*) AS n FROM pets").first<{ n: number }>();
    await expectError(
      await create({ name: "Stray", categoryId: 1, shelterId: othersShelterId }),
      403,
      "not_owner",
    );
    await expectError(
      await create({ name: "Stray", categoryId: 1, shelterId: 9_000_000 }),
      422,
      "unknown_shelter",
      { paths: ["shelterId"] },
    );
    const gone = await madeShelter(owner.hash);
    const request = {
      id: gone.id,
      changer: { kind: "key" as const, apiKeyHash: owner.hash, operatorEmail: env.OPERATOR_EMAIL },
      accepted: undefined,
    };
    expect((await removeShelter(testServices().db, request, Date.now())).kind).toBe("deleted");
    await expectError(
      await create({ name: "Stray", categoryId: 1, shelterId: gone.id }),
      422,
      "unknown_shelter",
      { paths: ["shelterId"] },
    );
    const after = await env.DB.prepare("SELECT count(*) AS n FROM pets").first<{ n: number }>();
    expect(after?.n).toBe(before?.n);
    const pet = await created({});
    await expectError(await patch(pet.id, { shelterId: othersShelterId }), 403, "not_owner");
    await expectError(await patch(pet.id, { shelterId: gone.id }), 422, "unknown_shelter", {
      paths: ["shelterId"],
    });
  });

  it("is set and cleared by merge patches, and pet.updated names exactly what changed", async () => {
    const pet = await created({ breed: "Beagle", age: "baby", goodWithCats: true });
    const res = await patch(pet.id, {
      shelterId,
      breed: null,
      age: "baby",
      goodWithCats: false,
      description: "Calm",
    });
    const after = await jsonOf<Record<string, unknown>>(res);
    expect(res.status).toBe(200);
    expect(after).toMatchObject({
      shelterId,
      breed: null,
      age: "baby",
      goodWithCats: false,
      description: "Calm",
      etag: '"2"',
    });
    expect(await updatedEvents(pet.id)).toEqual([
      ["shelterId", "breed", "goodWithCats", "description"],
    ]);
    const same = await patch(pet.id, { age: "baby", breed: null });
    expect(((await jsonOf<{ etag: string }>(same)) as { etag: string }).etag).toBe('"2"');
    expect(await updatedEvents(pet.id)).toHaveLength(1);
  });

  it.each([
    ["a null name", { name: null }, ["name"]],
    ["a null categoryId", { categoryId: null }, ["categoryId"]],
    ["a null status", { status: null }, ["status"]],
    ["an unknown age", { age: "puppy" }, ["age"]],
    ["an unknown size", { size: "huge" }, ["size"]],
    ["an unknown sex", { sex: "other" }, ["sex"]],
    ["a yes/no as a string", { houseTrained: "yes" }, ["houseTrained"]],
    ["a 61-character breed", { breed: "b".repeat(61) }, ["breed"]],
    ["a 4,001-character description", { description: "d".repeat(4001) }, ["description"]],
    ["a control character in the description", { description: "a\u0007b" }, ["description"]],
    ["distanceKm", { distanceKm: 3, name: "Rex" }, ["distanceKm"]],
  ])("refuses %s in a patch with 400", async (_, body, paths) => {
    const pet = await created({});
    await expectError(await patch(pet.id, body), 400, "invalid_request", { paths });
  });

  it("takes a description of 4,000 characters escaped to near 64 KiB", async () => {
    // Each emoji travels as two \u escapes, twelve bytes: 4,000 of them are 48,000.
    const description = "\u{1f436}".repeat(4000);
    const body = JSON.stringify({ name: "Wordy", categoryId: 1, description }).replace(
      /\u{1f436}/gu,
      "\\ud83d\\udc36",
    );
    expect(new TextEncoder().encode(body).byteLength).toBeGreaterThan(16 * 1024);
    const res = await api("/v1/pets", {
      method: "POST",
      key: owner.key,
      body,
      headers: { "Content-Type": "application/json" },
    });
    const pet = await jsonOf<{ description: string }>(res);
    expect(res.status).toBe(201);
    expect(pet.description).toBe(description);
  });
});

/** Every animal a listing finds, following Link to the end: ids in order. */
async function walk(query: string, limit = 2): Promise<number[]> {
  const ids: number[] = [];
  let path: string | null = `/v1/pets?limit=${limit}&${query}`;
  for (let pages = 0; path !== null; pages++) {
    expect(pages, "runaway paging").toBeLessThan(100);
    const res = await api(path, { key: owner.key });
    const text = await res.text();
    expect(res.status, `${path}: ${text}`).toBe(200);
    ids.push(...(JSON.parse(text) as { id: number }[]).map((pet) => pet.id));
    const next = res.headers.get("Link")?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    path = next ? next.slice(ORIGIN.length) : null;
  }
  return ids;
}

describe("the profile filters", () => {
  let herd: { id: number; shelterId: number }[];
  let home: number;
  let away: number;

  beforeAll(async () => {
    home = (await madeShelter(owner.hash, { name: "Herd Home" })).id;
    away = (await madeShelter(owner.hash, { name: "Herd Away" })).id;
    const profiles = [
      {
        shelterId: home,
        breed: "Border Collie",
        age: "young",
        size: "medium",
        sex: "female",
        goodWithChildren: true,
      },
      {
        shelterId: home,
        breed: "Border Terrier",
        age: "adult",
        size: "small",
        sex: "male",
        goodWithChildren: false,
      },
      {
        shelterId: home,
        breed: "Collie",
        age: "young",
        size: "large",
        sex: "male",
        goodWithChildren: true,
        categoryId: 2,
      },
      {
        shelterId: away,
        breed: "Bördér Collie",
        age: "young",
        size: "medium",
        sex: "female",
        goodWithChildren: null,
      },
      {
        shelterId: away,
        breed: null,
        age: "senior",
        size: "xlarge",
        sex: null,
        goodWithChildren: true,
        status: "sold",
      },
    ];
    herd = [];
    for (const profile of profiles) {
      const pet = await created({ name: "Herd", ...profile });
      herd.push({ id: pet.id, shelterId: profile.shelterId });
    }
  });

  const ids = (...positions: number[]) => positions.map((i) => herd[i]?.id);
  const both = () => `shelterId=${home}&shelterId=${away}`;

  it("find by each filter alone, within the herd's shelters", async () => {
    expect(await walk(`shelterId=${home}`)).toEqual(ids(0, 1, 2));
    expect(await walk(both())).toEqual(ids(0, 1, 2, 3, 4));
    expect(await walk(`${both()}&breed=collie`)).toEqual(ids(0, 2, 3));
    expect(await walk(`${both()}&breed=bord%20col`)).toEqual(ids(0, 3));
    expect(await walk(`${both()}&breed=terr&breed=coll`)).toEqual(ids(0, 1, 2, 3));
    expect(await walk(`${both()}&age=young`)).toEqual(ids(0, 2, 3));
    expect(await walk(`${both()}&size=small&size=xlarge`)).toEqual(ids(1, 4));
    expect(await walk(`${both()}&sex=female`)).toEqual(ids(0, 3));
    expect(await walk(`${both()}&goodWithChildren=true`)).toEqual(ids(0, 2, 4));
    expect(await walk(`${both()}&goodWithChildren=false`)).toEqual(ids(1));
  });

  it("combine with each other and with q, status, categoryId, id and direction", async () => {
    expect(await walk(`${both()}&age=young&goodWithChildren=true`, 1)).toEqual(ids(0, 2));
    expect(await walk(`${both()}&age=young&sex=female&breed=collie`, 1)).toEqual(ids(0, 3));
    expect(await walk(`${both()}&q=herd&size=medium`, 1)).toEqual(ids(0, 3));
    expect(await walk(`${both()}&status=sold`)).toEqual(ids(4));
    expect(await walk(`${both()}&categoryId=2&age=young`)).toEqual(ids(2));
    expect(await walk(`id=${herd[1]?.id}&id=${herd[3]?.id}&sex=female`)).toEqual(ids(3));
    expect(await walk(`id=${herd[0]?.id}&id=${herd[2]?.id}&breed=collie&q=herd`)).toEqual(
      ids(0, 2),
    );
    expect(await walk(`${both()}&age=young&direction=desc`, 1)).toEqual(ids(3, 2, 0));
  });

  it("keep every filter in the Link", async () => {
    const query = `${both()}&breed=collie&age=young&goodWithChildren=true`;
    const res = await api(`/v1/pets?limit=1&${query}`, { key: owner.key });
    await res.json();
    expect(res.status).toBe(200);
    const link = res.headers.get("Link") ?? "";
    const next = new URL(link.match(/^<([^>]+)>/)?.[1] ?? ORIGIN);
    expect(next.searchParams.getAll("shelterId")).toEqual([String(home), String(away)]);
    expect(next.searchParams.get("breed")).toBe("collie");
    expect(next.searchParams.get("age")).toBe("young");
    expect(next.searchParams.get("goodWithChildren")).toBe("true");
  });

  it.each([
    ["an unknown age", "age=puppy", ["age"]],
    ["an unknown size", "size=huge", ["size"]],
    ["an unknown sex", "sex=other", ["sex"]],
    ["a yes/no that is neither", "goodWithCats=yes", ["goodWithCats"]],
    ["a breed without a word", "breed=%2A%2A", ["breed"]],
    ["a shelterId of 0", "shelterId=0", ["shelterId"]],
  ])("refuse %s with 400", async (_, query, paths) => {
    await expectError(await api(`/v1/pets?${query}`, { key: owner.key }), 400, "invalid_request", {
      paths,
    });
  });

  it("refuse more than 100 profile values in all", async () => {
    const many = [
      ...Array.from({ length: 98 }, (_, i) => `shelterId=${i + 1}`),
      "age=young",
      "size=small",
      "sex=male",
    ].join("&");
    const res = await api(`/v1/pets?${many}`, { key: owner.key });
    await expectError(res, 400, "invalid_request", { paths: ["query"] });
    const fine = await api(`/v1/pets?${many.replace("&sex=male", "")}`, { key: owner.key });
    expect(fine.status).toBe(200);
    await fine.json();
  });
});
