import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type CreatedPet,
  createCategory,
  createPet,
  expectError,
  expectPet,
  freshIp,
} from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { move, placeOrder } from "../support/orders.ts";
import { type ApiRequestInit, api, send } from "../support/request.ts";

let key: string;
let otherKey: string;

beforeAll(async () => {
  ({ key } = await seedKey());
  ({ key: otherKey } = await seedKey());
});

/** PATCH /v1/pets/{id} with a JSON body; the caller reads the body. */
function patch(id: number | string, json: unknown, init: ApiRequestInit = {}): Promise<Response> {
  return api(`/v1/pets/${id}`, { method: "PATCH", key, json, ...init });
}

/** The animal's row as stored, straight from D1. */
async function stored(id: number) {
  return env.DB.prepare("SELECT name, category_id, status, version FROM pets WHERE id = ?")
    .bind(id)
    .first<{ name: string; category_id: number; status: string; version: number }>();
}

/** The events written about the animal, as stored, oldest first. */
async function eventsOf(id: number) {
  const { results } = await env.DB.prepare(
    `SELECT type, data, previous_status AS previousStatus, changes FROM events
     WHERE json_extract(data, '$.id') = ? AND type LIKE 'pet.%' ORDER BY seq`,
  )
    .bind(id)
    .all<{ type: string; data: string; previousStatus: string | null; changes: string | null }>();
  return results.map((row) => ({
    type: row.type,
    data: JSON.parse(row.data) as CreatedPet,
    previousStatus: row.previousStatus,
    changes: row.changes === null ? null : (JSON.parse(row.changes) as string[]),
  }));
}

describe("PATCH /v1/pets/{petId} — happy path", () => {
  it("changes the fields sent, answers the animal with a new etag as ETag, and says what changed", async () => {
    const pet = await createPet(key, { name: "Rexx", categoryId: 1 });
    const res = await patch(pet.id, { name: "Rex", categoryId: 2 });
    expect(res.status).toBe(200);
    const after = (await res.json()) as CreatedPet;
    expectPet(after);
    expect(after).toEqual({ ...pet, name: "Rex", categoryId: 2, etag: '"2"' });
    expect(res.headers.get("ETag")).toBe('"2"');
    const fetched = await api(`/v1/pets/${pet.id}`, { key });
    expect(await fetched.json()).toEqual(after);
    expect(fetched.headers.get("ETag")).toBe('"2"');
    expect(await eventsOf(pet.id)).toEqual([
      { type: "pet.created", data: pet, previousStatus: null, changes: null },
      { type: "pet.updated", data: after, previousStatus: null, changes: ["name", "categoryId"] },
    ]);
  });

  it("moves the status with pet.updated and pet.status_changed, in that order", async () => {
    const pet = await createPet(key, { name: "Mover", categoryId: 1 });
    const res = await patch(pet.id, { status: "sold", name: "Mover" });
    const after = (await res.json()) as CreatedPet;
    expect(after).toMatchObject({ status: "sold", etag: '"2"' });
    expect((await eventsOf(pet.id)).slice(1)).toEqual([
      { type: "pet.updated", data: after, previousStatus: null, changes: ["status"] },
      { type: "pet.status_changed", data: after, previousStatus: "available", changes: null },
    ]);
  });

  it("takes application/merge-patch+json as it takes application/json", async () => {
    const pet = await createPet(key, { name: "Merge", categoryId: 3 });
    const res = await api(`/v1/pets/${pet.id}`, {
      method: "PATCH",
      key,
      body: JSON.stringify({ categoryId: 4 }),
      headers: { "Content-Type": "application/merge-patch+json; charset=utf-8" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ categoryId: 4, etag: '"2"' });
  });

  it("writes nothing for a patch that changes nothing: 200, the same etag, no event", async () => {
    const pet = await createPet(key, { name: "Same", categoryId: 5, status: "pending" });
    const res = await patch(pet.id, { name: "Same", categoryId: 5, status: "pending" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(pet);
    expect(res.headers.get("ETag")).toBe(pet.etag);
    expect((await stored(pet.id))?.version).toBe(1);
    expect((await eventsOf(pet.id)).map((event) => event.type)).toEqual(["pet.created"]);
  });

  it("changes when If-Match names the current etag: alone, in a list, or as *", async () => {
    const pet = await createPet(key, { name: "Guarded", categoryId: 1 });
    for (const [ifMatch, name, etag] of [
      ['"1"', "One", '"2"'],
      ['"7", W/"9", "2"', "Two", '"3"'],
      ["*", "Three", '"4"'],
      ['"a,b" ,, "4"', "Four", '"5"'],
    ] as const) {
      const res = await patch(pet.id, { name }, { headers: { "If-Match": ifMatch } });
      expect(res.status, ifMatch).toBe(200);
      expect(await res.json()).toMatchObject({ name, etag });
    }
  });

  it("lets the owner change an animal its other keys made", async () => {
    const owner = await seedKey();
    const sibling = await seedKey({ account: owner.row.account.email });
    const pet = await createPet(owner.key, { name: "Shared", categoryId: 1 });
    const res = await patch(pet.id, { name: "Still ours" }, { key: sibling.key });
    expect(res.status).toBe(200);
    await res.json();
  });

  it("changes a name, category or status freely while an order is placed, if the status stays", async () => {
    const pet = await createPet(key, { name: "Ordered", categoryId: 1 });
    await placeOrder(key, pet.id);
    const res = await patch(pet.id, { name: "Still ordered", categoryId: 2, status: "pending" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: "Still ordered",
      status: "pending",
      etag: '"3"',
    });
  });

  it("sets any status once the animal's order is completed or cancelled", async () => {
    const pet = await createPet(key, { name: "Adopted", categoryId: 1 });
    const order = await placeOrder(key, pet.id);
    await (await move(key, order.id, "cancel")).json();
    const res = await patch(pet.id, { status: "sold" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "sold" });
  });
});

describe("PATCH /v1/pets/{petId} — bad input", () => {
  let pet: CreatedPet;

  beforeAll(async () => {
    pet = await createPet(key, { name: "Untouched", categoryId: 2 });
  });

  it.each([
    ["an empty object", {}, ["body"]],
    ["a null name", { name: null }, ["name"]],
    ["a null status", { status: null }, ["status"]],
    ["a null categoryId", { categoryId: null }, ["categoryId"]],
    ["an empty name", { name: "" }, ["name"]],
    ["a white-space name", { name: "  " }, ["name"]],
    ["an unknown status", { status: "adopted" }, ["status"]],
    ["a categoryId of 0", { categoryId: 0 }, ["categoryId"]],
    ["the id", { id: 9, name: "Rex" }, ["id"]],
    ["the etag", { etag: '"1"', name: "Rex" }, ["etag"]],
    ["photoUrls", { photoUrls: [], name: "Rex" }, ["photoUrls"]],
    ["an array", [{ name: "Rex" }], ["body"]],
  ])("refuses %s with 400 invalid_request, changing nothing", async (_, json, paths) => {
    await expectError(await patch(pet.id, json), 400, "invalid_request", { paths });
    expect(await stored(pet.id)).toMatchObject({ name: "Untouched", version: 1 });
  });

  it("refuses JSON that does not parse, another media type and a body over 64 KiB", async () => {
    const raw = (body: string, type: string) =>
      api(`/v1/pets/${pet.id}`, { method: "PATCH", key, body, headers: { "Content-Type": type } });
    await expectError(await raw("{", "application/json"), 400, "invalid_json");
    const text = await raw('{"name":"Rex"}', "text/plain");
    const error = await expectError(text, 415, "unsupported_media_type");
    expect(error.message).toContain("application/merge-patch+json");
    await expectError(await patch(pet.id, { name: "x".repeat(66_000) }), 413, "payload_too_large");
    expect((await stored(pet.id))?.version).toBe(1);
  });

  it.each(["W/", '"1', "1", '"1" "2"', ",", " , ", '*, "1"', 'w/"1"'])(
    "refuses the malformed If-Match %j with 400, changing nothing",
    async (ifMatch) => {
      const res = await patch(pet.id, { name: "Rex" }, { headers: { "If-Match": ifMatch } });
      await expectError(res, 400, "invalid_request", { paths: ["If-Match"] });
      expect((await stored(pet.id))?.version).toBe(1);
    },
  );
});

describe("PATCH /v1/pets/{petId} — refusals", () => {
  it.each(["9007199254740991", "0", "abc", "1.5"])(
    "answers 404 for the unknown or malformed id %s",
    async (id) => {
      await expectError(await patch(id, { name: "Rex" }), 404, "not_found");
    },
  );

  it("answers 404 for a deleted animal", async () => {
    const pet = await createPet(key, { name: "Gone", categoryId: 1 });
    expect((await api(`/v1/pets/${pet.id}`, { method: "DELETE", key })).status).toBe(204);
    await expectError(await patch(pet.id, { name: "Back" }), 404, "not_found");
  });

  it("refuses another account's animal with 403 not_owner, and changes nothing", async () => {
    const pet = await createPet(key, { name: "Mine", categoryId: 1 });
    const res = await patch(pet.id, { name: "Theirs" }, { key: otherKey });
    await expectError(res, 403, "not_owner");
    expect(await stored(pet.id)).toMatchObject({ name: "Mine", version: 1 });
    // Who may not change it learns nothing more from If-Match or a missing category.
    const stale = await patch(
      pet.id,
      { categoryId: 999 },
      {
        key: otherKey,
        headers: { "If-Match": '"9"' },
      },
    );
    await expectError(stale, 403, "not_owner");
  });

  it("answers 412 when If-Match names no current version, even for a patch that changes nothing", async () => {
    const pet = await createPet(key, { name: "Stale", categoryId: 1 });
    await (await patch(pet.id, { name: "Fresh" })).json();
    for (const [ifMatch, body] of [
      ['"1"', { name: "Late" }],
      ['"1"', { name: "Fresh" }],
      ['W/"2"', { name: "Late" }],
      ['"02"', { name: "Late" }],
      ['"x"', { name: "Late" }],
    ] as const) {
      const res = await patch(pet.id, body, { headers: { "If-Match": ifMatch } });
      await expectError(res, 412, "precondition_failed");
    }
    expect(await stored(pet.id)).toMatchObject({ name: "Fresh", version: 2 });
  });

  it("answers 422 unknown_category for a category that names none, naming the field", async () => {
    const pet = await createPet(key, { name: "Homeless", categoryId: 1 });
    const { id } = await createCategory(key, "Deleted kind");
    expect((await api(`/v1/categories/${id}`, { method: "DELETE", key })).status).toBe(204);
    for (const categoryId of [999_999, id]) {
      const res = await patch(pet.id, { categoryId });
      await expectError(res, 422, "unknown_category", { paths: ["categoryId"] });
    }
    expect(await stored(pet.id)).toMatchObject({ category_id: 1, version: 1 });
  });

  it("answers 409 order_open, naming the order, for a status change while an order is placed", async () => {
    const pet = await createPet(key, { name: "Reserved", categoryId: 1 });
    const order = await placeOrder(key, pet.id);
    for (const status of ["available", "sold"]) {
      const error = await expectError(await patch(pet.id, { status }), 409, "order_open");
      expect(error.message).toContain(`Order ${order.id}`);
    }
    expect(await stored(pet.id)).toMatchObject({ status: "pending", version: 2 });
  });
});

describe("PATCH /v1/pets/{petId} — auth", () => {
  it("asks for a key first, whatever the animal", async () => {
    const reply = await send("/v1/pets/1", {
      method: "PATCH",
      json: { name: "Rex" },
      headers: { "CF-Connecting-IP": freshIp() },
    });
    expect(reply.status).toBe(401);
    expect(reply.body.code).toBe("unauthorized");
  });
});
