import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type CreatedCategory,
  createCategory,
  createPet,
  expectError,
  freshIp,
} from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { type ApiRequestInit, api, jsonOf, ORIGIN, postJson, send } from "../support/request.ts";

const SEEDED = [
  { id: 1, name: "Dogs", etag: '"1"' },
  { id: 2, name: "Cats", etag: '"1"' },
  { id: 3, name: "Rabbits", etag: '"1"' },
  { id: 4, name: "Birds", etag: '"1"' },
  { id: 5, name: "Small mammals", etag: '"1"' },
  { id: 6, name: "Reptiles", etag: '"1"' },
  { id: 7, name: "Fish", etag: '"1"' },
];

let key: string;
let otherKey: string;
let operatorKey: string;

beforeAll(async () => {
  ({ key } = await seedKey());
  ({ key: otherKey } = await seedKey());
  // The environment's operator account (OPERATOR_EMAIL) owns what a migration made.
  ({ key: operatorKey } = await seedKey({ account: env.OPERATOR_EMAIL }));
});

const rename = (id: number | string, name: unknown, init: ApiRequestInit = {}) =>
  api(`/v1/categories/${id}`, { method: "PATCH", key, json: { name }, ...init });
const remove = (id: number | string, init: ApiRequestInit = {}) =>
  api(`/v1/categories/${id}`, { method: "DELETE", key, ...init });

/** Every live category, following Link to the end. */
async function allCategories(limit = 3): Promise<CreatedCategory[]> {
  const all: CreatedCategory[] = [];
  let path: string | null = `/v1/categories?limit=${limit}`;
  while (path !== null) {
    const res = await api(path, { key });
    expect(res.status).toBe(200);
    all.push(...(await jsonOf<CreatedCategory[]>(res)));
    const next = res.headers.get("Link")?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    path = next ? next.slice(ORIGIN.length) : null;
  }
  return all;
}

async function categoryEvents(id: number) {
  const { results } = await env.DB.prepare(
    "SELECT type, data, account_id AS accountId FROM events WHERE type LIKE 'category.%' AND json_extract(data, '$.id') = ? ORDER BY seq",
  )
    .bind(id)
    .all<{ type: string; data: string; accountId: number | null }>();
  return results.map((row) => ({ ...row, data: JSON.parse(row.data) as CreatedCategory }));
}

describe("categories — happy path", () => {
  it("starts with the seven seeded, in id order, paged", async () => {
    expect(await allCategories()).toEqual(SEEDED);
    const one = await api("/v1/categories/5", { key });
    expect(await one.json()).toEqual(SEEDED[4]);
    expect(one.headers.get("ETag")).toBe('"1"');
  });

  it("adds, renames and deletes a category, each with a new etag and an event for everyone", async () => {
    const res = await postJson("/v1/categories", key, { name: "Ferrets" });
    expect(res.status).toBe(201);
    const made = await jsonOf<CreatedCategory>(res);
    expect(made).toEqual({ id: made.id, name: "Ferrets", etag: '"1"' });
    expect(made.id).toBeGreaterThan(7);
    expect(res.headers.get("Location")).toBe(`/v1/categories/${made.id}`);
    expect(res.headers.get("ETag")).toBe('"1"');

    const renamed = await rename(made.id, "Ferrets and weasels", {
      headers: { "If-Match": '"1"' },
    });
    expect(renamed.status).toBe(200);
    const after = await jsonOf<CreatedCategory>(renamed);
    expect(after).toEqual({ id: made.id, name: "Ferrets and weasels", etag: '"2"' });
    expect(renamed.headers.get("ETag")).toBe('"2"');

    const removed = await remove(made.id, { headers: { "If-Match": '"2"' } });
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe("");
    await expectError(await api(`/v1/categories/${made.id}`, { key }), 404, "not_found");
    expect((await allCategories(100)).map((category) => category.id)).not.toContain(made.id);

    expect(await categoryEvents(made.id)).toEqual([
      { type: "category.created", data: made, accountId: null },
      { type: "category.updated", data: after, accountId: null },
      { type: "category.deleted", data: { ...after, etag: '"3"' }, accountId: null },
    ]);
  });

  it("writes nothing when renamed to the name it has; a change of case alone is a change", async () => {
    const made = await createCategory(key, "Hamsters");
    const same = await rename(made.id, "Hamsters");
    expect(await same.json()).toEqual(made);
    const cased = await rename(made.id, "HAMSTERS");
    expect(await cased.json()).toEqual({ ...made, name: "HAMSTERS", etag: '"2"' });
    expect((await categoryEvents(made.id)).map((event) => event.type)).toEqual([
      "category.created",
      "category.updated",
    ]);
  });

  it("frees a deleted category's name, and never gives its id again", async () => {
    const first = await createCategory(key, "Axolotls");
    expect((await remove(first.id)).status).toBe(204);
    const again = await createCategory(key, "axolotls");
    expect(again.id).toBeGreaterThan(first.id);
  });

  it("lets the operator account change the seeded categories, and nobody else", async () => {
    await expectError(await rename(7, "Fishes"), 403, "not_owner");
    await expectError(await remove(7, { key: otherKey }), 403, "not_owner");
    const res = await rename(7, "Fishes", { key: operatorKey });
    expect(await res.json()).toEqual({ id: 7, name: "Fishes", etag: '"2"' });
    // A category the operator account made with its key is its own as well.
    const own = await createCategory(operatorKey, "Operator's own");
    expect((await remove(own.id, { key: operatorKey })).status).toBe(204);
  });
});

describe("categories — names are unique ignoring case and accents, as q folds them", () => {
  it.each(["Cats", "cats", "CATS", "Cáts", "cats!", " Cats ", "CÁTS."])(
    "refuses %j beside Cats with 409 category_exists, naming it",
    async (name) => {
      const error = await expectError(
        await postJson("/v1/categories", key, { name }),
        409,
        "category_exists",
      );
      expect(error.message).toContain("Category 2");
    },
  );

  it("refuses a rename onto another category's name, and keeps both", async () => {
    const made = await createCategory(key, "Tortoises");
    await expectError(await rename(made.id, "small-MAMMALS"), 409, "category_exists");
    expect(await jsonOf(await api(`/v1/categories/${made.id}`, { key }))).toEqual(made);
  });

  it.each([
    ["Cat", "a shorter word"],
    ["Cats and dogs", "more words"],
    ["Cæts", "æ, which is not folded"],
    ["Catß", "ß, which is not folded"],
    ["🐈", "no word at all"],
  ])("takes %j beside Cats: %s", async (name) => {
    const made = await createCategory(key, name);
    expect(made.name).toBe(name);
  });

  it("compares names without words as they are", async () => {
    await createCategory(key, "🐕‍🦺");
    await expectError(
      await postJson("/v1/categories", key, { name: "🐕‍🦺" }),
      409,
      "category_exists",
    );
    expect((await createCategory(key, "🐕")).name).toBe("🐕");
  });
});

describe("categories — refusals", () => {
  it("refuses deleting a category an animal belongs to with 409 category_in_use; a deleted animal does not count", async () => {
    const made = await createCategory(key, "Parrots");
    const pet = await createPet(key, { name: "Polly", categoryId: made.id });
    await expectError(await remove(made.id), 409, "category_in_use");
    expect((await api(`/v1/pets/${pet.id}`, { method: "DELETE", key })).status).toBe(204);
    expect((await remove(made.id)).status).toBe(204);
  });

  it("answers 412 for a stale If-Match and 400 for a malformed one, changing nothing", async () => {
    const made = await createCategory(key, "Guppies");
    for (const ifMatch of ['"2"', 'W/"1"']) {
      await expectError(
        await rename(made.id, "Mollies", { headers: { "If-Match": ifMatch } }),
        412,
        "precondition_failed",
      );
      await expectError(
        await remove(made.id, { headers: { "If-Match": ifMatch } }),
        412,
        "precondition_failed",
      );
    }
    await expectError(
      await rename(made.id, "Mollies", { headers: { "If-Match": "1" } }),
      400,
      "invalid_request",
      {
        paths: ["If-Match"],
      },
    );
    expect(await jsonOf(await api(`/v1/categories/${made.id}`, { key }))).toEqual(made);
  });

  it.each(["9007199254740991", "0", "abc"])("answers 404 for the category %s", async (id) => {
    await expectError(await api(`/v1/categories/${id}`, { key }), 404, "not_found");
    await expectError(await rename(id, "Any"), 404, "not_found");
    await expectError(await remove(id), 404, "not_found");
  });

  it.each([
    ["no name", {}, ["name"]],
    ["an empty name", { name: "" }, ["name"]],
    ["a white-space name", { name: "   " }, ["name"]],
    ["a 51-character name", { name: "n".repeat(51) }, ["name"]],
    ["a null name", { name: null }, ["name"]],
    ["an id", { id: 9, name: "Newts" }, ["id"]],
    ["an etag", { etag: '"1"', name: "Newts" }, ["etag"]],
  ])("refuses %s with 400 invalid_request", async (_, json, paths) => {
    await expectError(
      await api("/v1/categories", { method: "POST", key, json }),
      400,
      "invalid_request",
      { paths },
    );
    await expectError(
      await api("/v1/categories/1", { method: "PATCH", key, json }),
      400,
      "invalid_request",
      {
        paths,
      },
    );
  });

  it("takes a 50-character name, and merge-patch bodies for a rename", async () => {
    const made = await createCategory(key, "m".repeat(50));
    const res = await api(`/v1/categories/${made.id}`, {
      method: "PATCH",
      key,
      body: JSON.stringify({ name: "Newts" }),
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(await res.json()).toMatchObject({ name: "Newts" });
  });

  it("asks for a key first", async () => {
    for (const [path, method] of [
      ["/v1/categories", "GET"],
      ["/v1/categories", "POST"],
      ["/v1/categories/1", "PATCH"],
      ["/v1/categories/1", "DELETE"],
    ]) {
      const reply = await send(path ?? "", {
        method,
        json: method === "GET" || method === "DELETE" ? undefined : { name: "X" },
        headers: { "CF-Connecting-IP": freshIp() },
      });
      expect(reply.status, `${method} ${path}`).toBe(401);
    }
  });
});
