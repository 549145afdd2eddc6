import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { ChangeRequest } from "../../../src/catalogue/changes.ts";
import { editShelter, removeShelter } from "../../../src/shelters/shelter-edits.ts";
import {
  NewShelterSchema,
  type Shelter,
  ShelterPatchSchema,
} from "../../../src/shelters/shelters.schemas.ts";
import { createPet, expectError } from "../support/assertions.ts";
import { type SeededKey, seedKey, testServices } from "../support/keys.ts";
import { type ApiRequestInit, api, jsonOf, ORIGIN } from "../support/request.ts";
import { addShelter, madeShelter, newShelter } from "../support/shelters.ts";

const SHELTER_KEYS = [
  "id",
  "name",
  "email",
  "phone",
  "website",
  "address",
  "latitude",
  "longitude",
  "distanceKm",
  "etag",
];

let owner: SeededKey;
let other: SeededKey;

beforeAll(async () => {
  owner = await seedKey();
  other = await seedKey();
  // Enough room for every shelter these tests make for the owner.
  await setPlan(owner, "enterprise");
});

async function setPlan(seeded: SeededKey, plan: string) {
  await env.DB.prepare("UPDATE accounts SET plan = ? WHERE id = ?")
    .bind(plan, seeded.row.accountId)
    .run();
}

const { db, config } = testServices();

function requestFor(seeded: SeededKey, id: number, accepted?: number[]): ChangeRequest {
  return {
    id,
    changer: { kind: "key", apiKeyHash: seeded.hash, operatorEmail: config.operatorEmail },
    accepted,
  };
}

async function shelterEvents(id: number) {
  const { results } = await env.DB.prepare(
    "SELECT type, data, account_id AS accountId FROM events WHERE type LIKE 'shelter.%' AND json_extract(data, '$.id') = ? ORDER BY seq",
  )
    .bind(id)
    .all<{ type: string; data: string; accountId: number | null }>();
  return results.map((row) => ({ ...row, data: JSON.parse(row.data) as Shelter }));
}

/** Every shelter the query finds, following Link to the end. */
async function walk(query: string): Promise<number[]> {
  const ids: number[] = [];
  let path: string | null = `/v1/shelters?${query}`;
  while (path !== null) {
    const res = await api(path, { key: owner.key });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    ids.push(...(JSON.parse(text) as Shelter[]).map((shelter) => shelter.id));
    const next = res.headers.get("Link")?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    path = next ? next.slice(ORIGIN.length) : null;
  }
  return ids;
}

describe("a shelter", () => {
  it("is made with every key in the contract's order, its event for everyone, and read back by getShelter", async () => {
    const shelter = await madeShelter(owner.hash, {
      phone: "+44 20 7946 0000",
      address: { street: "1 Park Lane", city: "London", country: "GB" },
    });
    expect(Object.keys(shelter)).toEqual(SHELTER_KEYS);
    expect(shelter).toEqual({
      id: shelter.id,
      name: "Happy Tails Rescue",
      email: "hello@happytails.example",
      phone: "+44 20 7946 0000",
      website: null,
      address: {
        street: "1 Park Lane",
        city: "London",
        region: null,
        postalCode: null,
        country: "GB",
      },
      latitude: 51.5072,
      longitude: -0.1276,
      distanceKm: null,
      etag: '"1"',
    });
    const res = await api(`/v1/shelters/${shelter.id}`, { key: other.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("ETag")).toBe('"1"');
    expect(await res.json()).toEqual(shelter);
    const events = await shelterEvents(shelter.id);
    expect(events).toEqual([{ type: "shelter.created", data: shelter, accountId: null }]);
  });

  it("is 404 when unknown, malformed or deleted", async () => {
    for (const id of ["9007199254740991", "0", "abc"]) {
      await expectError(await api(`/v1/shelters/${id}`, { key: owner.key }), 404, "not_found");
    }
    const shelter = await madeShelter(owner.hash);
    expect((await removeShelter(db, requestFor(owner, shelter.id), Date.now())).kind).toBe(
      "deleted",
    );
    await expectError(
      await api(`/v1/shelters/${shelter.id}`, { key: owner.key }),
      404,
      "not_found",
    );
  });
});

describe("the shelters' caps by plan", () => {
  it.each([
    ["free", 1],
    ["pro", 5],
  ] as const)("hold exactly on %s (%i) under concurrent creates", async (plan, cap) => {
    const seeded = await seedKey();
    await setPlan(seeded, plan);
    const outcomes = await Promise.all(
      Array.from({ length: cap + 4 }, (_, i) => addShelter(seeded.hash, { name: `Cap ${i}` })),
    );
    expect(outcomes.filter((outcome) => outcome.kind === "made")).toHaveLength(cap);
    expect(outcomes.filter((outcome) => outcome.kind === "limitReached")).toHaveLength(4);
  });

  it("keep the shelters of a lowered plan and refuse new ones", async () => {
    const seeded = await seedKey();
    await setPlan(seeded, "pro");
    const kept = [await madeShelter(seeded.hash), await madeShelter(seeded.hash)];
    await setPlan(seeded, "free");
    expect((await addShelter(seeded.hash)).kind).toBe("limitReached");
    for (const shelter of kept) {
      const res = await api(`/v1/shelters/${shelter.id}`, { key: seeded.key });
      expect(res.status).toBe(200);
      await res.json();
    }
  });
});

describe("a shelter's merge patch", () => {
  it("merges the address member by member, clears with null, and says so in shelter.updated", async () => {
    const shelter = await madeShelter(owner.hash, {
      address: { street: "1 Park Lane", city: "London", region: "Greater London", country: "GB" },
      website: "https://happytails.example",
    });
    const patch = ShelterPatchSchema.parse({
      website: null,
      address: { street: null, postalCode: "W1K 1AA" },
    });
    const outcome = await editShelter(db, requestFor(owner, shelter.id), patch);
    if (outcome.kind !== "edited") throw new Error(`not edited: ${outcome.kind}`);
    expect(outcome.shelter).toEqual({
      ...shelter,
      website: null,
      address: {
        street: null,
        city: "London",
        region: "Greater London",
        postalCode: "W1K 1AA",
        country: "GB",
      },
      etag: '"2"',
    });
    const events = await shelterEvents(shelter.id);
    expect(events.map((event) => event.type)).toEqual(["shelter.created", "shelter.updated"]);
    expect(events[1]?.data).toEqual(outcome.shelter);
  });

  it("writes nothing when it changes nothing", async () => {
    const shelter = await madeShelter(owner.hash);
    const patch = ShelterPatchSchema.parse({ name: shelter.name, address: { city: "London" } });
    const outcome = await editShelter(db, requestFor(owner, shelter.id), patch);
    expect(outcome).toEqual({ kind: "unchanged", shelter });
    expect(await shelterEvents(shelter.id)).toHaveLength(1);
  });

  it("refuses another account, a stale If-Match, and gives one edit of two racing on one version", async () => {
    const shelter = await madeShelter(owner.hash);
    const patch = ShelterPatchSchema.parse({ name: "Elsewhere" });
    expect((await editShelter(db, requestFor(other, shelter.id), patch)).kind).toBe("notOwner");
    expect((await editShelter(db, requestFor(owner, shelter.id, [7]), patch)).kind).toBe(
      "preconditionFailed",
    );
    const racing = await Promise.all(
      ["First", "Second"].map((name) =>
        editShelter(db, requestFor(owner, shelter.id, [1]), ShelterPatchSchema.parse({ name })),
      ),
    );
    expect(racing.map((outcome) => outcome.kind).sort()).toEqual(["edited", "preconditionFailed"]);
    expect((await shelterEvents(shelter.id)).map((event) => event.type)).toEqual([
      "shelter.created",
      "shelter.updated",
    ]);
  });

  it("refuses null for a required field, address, city or country, and unknown fields", () => {
    for (const body of [
      { name: null },
      { email: null },
      { latitude: null },
      { address: null },
      { address: { city: null } },
      { address: { country: null } },
      { address: { country: "XX" } },
      { id: 3 },
      { distanceKm: 1 },
      {},
    ]) {
      expect(ShelterPatchSchema.safeParse(body).success, JSON.stringify(body)).toBe(false);
    }
  });
});

describe("a new shelter's fields", () => {
  it.each([
    ["an email without @", { email: "nobody.example" }],
    ["an email with two @", { email: "a@b@example.com" }],
    ["an email without a dot in its domain", { email: "a@localhost" }],
    ["an email of 255 characters", { email: `${"a".repeat(243)}@example.com` }],
    ["a phone with letters", { phone: "call us" }],
    ["a phone of 33 characters", { phone: "1".repeat(33) }],
    ["an http website", { website: "http://happytails.example" }],
    ["a relative website", { website: "/about" }],
    ["a latitude past the pole", { latitude: 90.5 }],
    ["a longitude past the antimeridian", { longitude: -180.01 }],
    ["a lower-case country", { address: { city: "London", country: "gb" } }],
    ["an unassigned country", { address: { city: "London", country: "AA" } }],
    ["no city", { address: { country: "GB" } }],
    ["an empty name", { name: " " }],
  ] as [string, Record<string, unknown>][])("refuses %s", (_, overrides) => {
    expect(NewShelterSchema.safeParse({ ...newShelter(), ...overrides }).success).toBe(false);
  });

  it("takes the edges: ±90, ±180, a 254-character email, 32 characters of phone, every assigned country", () => {
    const edges = newShelter({
      latitude: -90,
      longitude: 180,
      email: `${"a".repeat(242)}@example.com`,
      phone: "+1 (555) 010-0000.12345678901234".slice(0, 32),
      address: { city: "Longyearbyen", country: "SJ" },
    });
    expect(NewShelterSchema.safeParse(edges).success).toBe(true);
    const countries = NewShelterSchema.shape.address.shape.country.options;
    expect(countries).toHaveLength(249);
  });
});

describe("deleting a shelter", () => {
  it("is shelter_in_use while a live animal lives there, then a tombstone with its event", async () => {
    const shelter = await madeShelter(owner.hash);
    const pet = await createPet(owner.key, { name: "Resident", categoryId: 1 });
    const moved = await api(`/v1/pets/${pet.id}`, {
      method: "PATCH",
      key: owner.key,
      json: { shelterId: shelter.id },
    });
    expect(moved.status).toBe(200);
    await moved.json();
    expect((await removeShelter(db, requestFor(owner, shelter.id), Date.now())).kind).toBe("inUse");
    const gone = await api(`/v1/pets/${pet.id}`, { method: "DELETE", key: owner.key });
    expect(gone.status).toBe(204);
    expect((await removeShelter(db, requestFor(other, shelter.id), Date.now())).kind).toBe(
      "notOwner",
    );
    expect((await removeShelter(db, requestFor(owner, shelter.id), Date.now())).kind).toBe(
      "deleted",
    );
    expect((await shelterEvents(shelter.id)).map((event) => event.type)).toEqual([
      "shelter.created",
      "shelter.deleted",
    ]);
    expect((await removeShelter(db, requestFor(owner, shelter.id), Date.now())).kind).toBe(
      "notFound",
    );
  });
});

describe("listShelters", () => {
  it("finds by id, q and country, alone and combined, paging without skipping or repeating", async () => {
    const made = [
      await madeShelter(owner.hash, {
        name: "Paws Harbour",
        address: { city: "Oslo", country: "NO" },
      }),
      await madeShelter(owner.hash, {
        name: "Paws and Claws",
        address: { city: "Lyon", country: "FR" },
      }),
      await madeShelter(owner.hash, {
        name: "Whisker Home",
        address: { city: "Oslo", country: "NO" },
      }),
      await madeShelter(owner.hash, {
        name: "Pâws End",
        address: { city: "Bergen", country: "NO" },
      }),
    ];
    const ids = made.map((shelter) => shelter.id);
    const [harbour, claws, whisker, end] = ids as [number, number, number, number];
    const byId = ids.map((id) => `id=${id}`).join("&");
    expect(await walk(`limit=1&${byId}`)).toEqual(ids);
    expect(await walk(`limit=1&${byId}&country=NO`)).toEqual([harbour, whisker, end]);
    expect(await walk(`limit=2&${byId}&q=paws`)).toEqual([harbour, claws, end]);
    expect(await walk(`limit=1&${byId}&q=paws&country=NO`)).toEqual([harbour, end]);
    const everyNorwegian = await walk("limit=2&country=NO&country=SE");
    expect(everyNorwegian).toEqual(expect.arrayContaining([harbour, whisker, end]));
    expect(new Set(everyNorwegian).size).toBe(everyNorwegian.length);
    expect(await walk("limit=1&q=whisker%20ho")).toEqual(expect.arrayContaining([whisker]));
    const all = await walk("limit=3");
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual([...all].sort((a, b) => a - b));
    expect(all).toEqual(expect.arrayContaining(ids));
  });

  it("refuses a q without a word, as the animals' listing does", async () => {
    for (const q of ["🐶", "***", " "]) {
      await expectError(
        await api(`/v1/shelters?q=${encodeURIComponent(q)}`, { key: owner.key }),
        400,
        "invalid_request",
        { paths: ["q"] },
      );
    }
  });

  it("refuses an unknown country and too many ids", async () => {
    await expectError(
      await api("/v1/shelters?country=XX", { key: owner.key }),
      400,
      "invalid_request",
      { paths: ["country"] },
    );
    const many = Array.from({ length: 101 }, (_, i) => `id=${i + 1}`).join("&");
    await expectError(
      await api(`/v1/shelters?${many}`, { key: owner.key }),
      400,
      "invalid_request",
      { paths: ["id"] },
    );
  });

  it("needs pets:read", async () => {
    const writer = await seedKey({ scopes: ["pets:write"] });
    await expectError(await api("/v1/shelters", { key: writer.key }), 403, "insufficient_scope");
    const reader = await seedKey({ scopes: ["pets:read"] });
    const res = await api("/v1/shelters?limit=1", { key: reader.key });
    expect(res.status).toBe(200);
    await jsonOf(res);
  });
});

describe("the shelters' write routes", () => {
  const post = (body: unknown, init: ApiRequestInit = {}) =>
    api("/v1/shelters", { method: "POST", key: owner.key, json: body, ...init });

  it("createShelter: 201 with Location and ETag, once per Idempotency-Key", async () => {
    const headers = { "Idempotency-Key": `shelter-${crypto.randomUUID()}` };
    const first = await post(newShelter({ name: "Keyed" }), { headers });
    const shelter = await jsonOf<Shelter>(first);
    expect(first.status).toBe(201);
    expect(first.headers.get("Location")).toBe(`/v1/shelters/${shelter.id}`);
    expect(first.headers.get("ETag")).toBe('"1"');
    const again = await post(newShelter({ name: "Keyed" }), { headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await again.json()).toEqual(shelter);
    await expectError(
      await post(newShelter({ name: "Other" }), { headers }),
      422,
      "idempotency_key_reused",
    );
    expect(await shelterEvents(shelter.id)).toHaveLength(1);
  });

  it("createShelter: 409 limit_reached past the plan's cap, exact under concurrency", async () => {
    const seeded = await seedKey();
    await setPlan(seeded, "pro");
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api("/v1/shelters", {
          method: "POST",
          key: seeded.key,
          json: newShelter({ name: `Rush ${i}` }),
        }),
      ),
    );
    const statuses = await Promise.all(
      replies.map(async (reply) => {
        await reply.text();
        return reply.status;
      }),
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 409)).toHaveLength(3);
    const refused = await api("/v1/shelters", {
      method: "POST",
      key: seeded.key,
      json: newShelter(),
    });
    const error = await expectError(refused, 409, "limit_reached");
    expect(error.message).toContain("5 shelters");
  });

  it("createShelter: 400 for a bad field, naming it", async () => {
    await expectError(await post(newShelter({ email: "nobody" })), 400, "invalid_request", {
      paths: ["email"],
    });
    await expectError(await post({ ...newShelter(), id: 4 }), 400, "invalid_request", {
      paths: ["id"],
    });
  });

  it("updateShelter: merges the address, 412 for one of two racing on one etag, 403 for another account", async () => {
    const shelter = await madeShelter(owner.hash, {
      address: { street: "2 Mill Road", city: "Cambridge", country: "GB" },
    });
    const path = `/v1/shelters/${shelter.id}`;
    const merged = await api(path, {
      method: "PATCH",
      key: owner.key,
      body: JSON.stringify({ address: { street: null, region: "Cambridgeshire" } }),
      headers: { "Content-Type": "application/merge-patch+json", "If-Match": '"1"' },
    });
    expect(merged.status).toBe(200);
    expect(merged.headers.get("ETag")).toBe('"2"');
    expect((await jsonOf<Shelter>(merged)).address).toEqual({
      street: null,
      city: "Cambridge",
      region: "Cambridgeshire",
      postalCode: null,
      country: "GB",
    });
    const racing = await Promise.all(
      ["One", "Two"].map((name) =>
        api(path, {
          method: "PATCH",
          key: owner.key,
          json: { name },
          headers: { "If-Match": '"2"' },
        }),
      ),
    );
    const statuses = await Promise.all(
      racing.map(async (reply) => {
        await reply.text();
        return reply.status;
      }),
    );
    expect(statuses.sort()).toEqual([200, 412]);
    await expectError(
      await api(path, { method: "PATCH", key: other.key, json: { name: "Mine" } }),
      403,
      "not_owner",
    );
    await expectError(
      await api(path, { method: "PATCH", key: owner.key, json: { address: null } }),
      400,
      "invalid_request",
      { paths: ["address"] },
    );
  });

  it("deleteShelter: 409 shelter_in_use while an animal lives there, then 204 and 404", async () => {
    const shelter = await madeShelter(owner.hash);
    const path = `/v1/shelters/${shelter.id}`;
    const pet = await api("/v1/pets", {
      method: "POST",
      key: owner.key,
      json: { name: "Tenant", categoryId: 1, shelterId: shelter.id },
    });
    const { id } = await jsonOf<{ id: number }>(pet);
    await expectError(await api(path, { method: "DELETE", key: owner.key }), 409, "shelter_in_use");
    const moved = await api(`/v1/pets/${id}`, {
      method: "PATCH",
      key: owner.key,
      json: { shelterId: null },
    });
    expect(moved.status).toBe(200);
    await moved.json();
    await expectError(await api(path, { method: "DELETE", key: other.key }), 403, "not_owner");
    const gone = await api(path, { method: "DELETE", key: owner.key });
    expect(gone.status).toBe(204);
    await gone.text();
    await expectError(await api(path, { method: "DELETE", key: owner.key }), 404, "not_found");
  });
});
