import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sweepFrame } from "../support/contract-sweep.ts";
import { failingD1, failingLimiter } from "../support/faulty-bindings.ts";
import { seedKey } from "../support/keys.ts";
import { captureLogs, storageFailure } from "../support/logs.ts";
import {
  CATALOGUE_OPERATIONS,
  type Contract,
  sweepKeyRefusals,
} from "../support/openapi-contract.ts";
import { placeOrder } from "../support/orders.ts";
import { type ApiRequestInit, api, MANY_REQUESTS } from "../support/request.ts";
import { madeShelter } from "../support/shelters.ts";

/**
 * The contract sweep of the operations that manage the catalogue (animals'
 * changes, categories, shelters): each driven into every status it can reach here,
 * each reply checked against the document the Worker serves.
 */

let contract: Contract;
let key: string;
let keyHash: string;
let otherKey: string;

sweepFrame(CATALOGUE_OPERATIONS, async (setup) => {
  ({ contract, key, otherKey } = setup);
  keyHash = setup.seeded.hash;
  // Room for every shelter the sweep makes.
  await env.DB.prepare("UPDATE accounts SET plan = 'enterprise' WHERE id = ?")
    .bind(setup.seeded.row.accountId)
    .run();
});

const json = (method: string, body: unknown, init: ApiRequestInit = {}): ApiRequestInit => ({
  method,
  key,
  json: body,
  ...init,
});
const raw = (method: string, body: string, type: string): ApiRequestInit => ({
  method,
  key,
  body,
  headers: { "Content-Type": type },
});

async function animal(): Promise<{ id: number; etag: string }> {
  const res = await api("/v1/pets", json("POST", { name: "Catalogued", categoryId: 1 }));
  return (await contract.check("createPet", res)) as { id: number; etag: string };
}

async function category(name: string): Promise<{ id: number; etag: string }> {
  const res = await api("/v1/categories", json("POST", { name }));
  return (await contract.check("createCategory", res)) as { id: number; etag: string };
}

/** Sends each request and checks its reply against the operation, insisting on the status. */
async function expectReplies(
  operationId: string,
  status: number,
  requests: [string, ApiRequestInit][],
): Promise<void> {
  for (const [path, init] of requests) {
    const reply = await api(path, init);
    expect(reply.status, `${init.method ?? "GET"} ${path}`).toBe(status);
    await contract.check(operationId, reply);
  }
}

describe("every operation managing the catalogue", MANY_REQUESTS, () => {
  it("403 for a key without its scope, and for one used from outside its ranges", async () => {
    await sweepKeyRefusals(contract, CATALOGUE_OPERATIONS);
  });
});

describe("updatePet and deletePet", () => {
  it("200 and 204, with the ETag of the animal", async () => {
    const pet = await animal();
    const changed = await api(`/v1/pets/${pet.id}`, json("PATCH", { name: "Changed" }));
    expect(changed.headers.get("ETag")).toBe('"2"');
    await contract.check("updatePet", changed);
    const merged = await api(
      `/v1/pets/${pet.id}`,
      raw("PATCH", '{"status":"sold"}', "application/merge-patch+json"),
    );
    await contract.check("updatePet", merged);
    await expectReplies("deletePet", 204, [[`/v1/pets/${pet.id}`, { method: "DELETE", key }]]);
  });

  it("400, 401, 403, 404, 409, 412, 413, 415 and 422", MANY_REQUESTS, async () => {
    const pet = await animal();
    const path = `/v1/pets/${pet.id}`;
    const stale = { headers: { "If-Match": '"9"' } };
    await expectReplies("updatePet", 400, [
      [path, json("PATCH", {})],
      [path, json("PATCH", { name: null })],
      [path, json("PATCH", { name: "X" }, { headers: { "If-Match": "9" } })],
      [path, raw("PATCH", "{", "application/json")],
    ]);
    await expectReplies("deletePet", 400, [
      [path, { method: "DELETE", key, headers: { "If-Match": "9" } }],
    ]);
    await expectReplies("updatePet", 401, [
      [path, { ...json("PATCH", { name: "X" }), key: undefined }],
    ]);
    await expectReplies("deletePet", 401, [[path, { method: "DELETE" }]]);
    await expectReplies("updatePet", 403, [
      [path, json("PATCH", { name: "X" }, { key: otherKey })],
    ]);
    await expectReplies("deletePet", 403, [[path, { method: "DELETE", key: otherKey }]]);
    await expectReplies("updatePet", 404, [
      ["/v1/pets/9007199254740991", json("PATCH", { name: "X" })],
    ]);
    await expectReplies("deletePet", 404, [["/v1/pets/abc", { method: "DELETE", key }]]);
    await expectReplies("updatePet", 412, [[path, json("PATCH", { name: "X" }, stale)]]);
    await expectReplies("deletePet", 412, [[path, { method: "DELETE", key, ...stale }]]);
    await expectReplies("updatePet", 413, [[path, json("PATCH", { name: "x".repeat(66_000) })]]);
    await expectReplies("updatePet", 415, [[path, raw("PATCH", '{"name":"X"}', "text/plain")]]);
    await expectReplies("updatePet", 422, [[path, json("PATCH", { categoryId: 999_999 })]]);
    await placeOrder(key, pet.id);
    await expectReplies("updatePet", 409, [[path, json("PATCH", { status: "sold" })]]);
    await expectReplies("deletePet", 409, [[path, { method: "DELETE", key }]]);
  });
});

describe("categories", () => {
  it("200, 201, 204 and 304, paged, with the ETag of each category", MANY_REQUESTS, async () => {
    let path: string | undefined = "/v1/categories?limit=3";
    while (path) {
      const reply = await api(path, { key });
      const link = reply.headers.get("Link");
      await contract.check("listCategories", reply);
      const next = link ? /<([^>]+)>; rel="next"/.exec(link)?.[1] : undefined;
      path = next ? new URL(next).pathname + new URL(next).search : undefined;
    }
    const made = await category("Contracted");
    const one = `/v1/categories/${made.id}`;
    await expectReplies("getCategory", 200, [[one, { key }]]);
    await expectReplies("updateCategory", 200, [
      [one, json("PATCH", { name: "Contracted again" })],
      [one, raw("PATCH", '{"name":"Contracted anew"}', "application/merge-patch+json")],
    ]);
    for (const [operationId, read] of [
      ["listCategories", "/v1/categories"],
      ["getCategory", one],
    ] as const) {
      const first = await api(read, { key });
      const tag = first.headers.get("ETag") ?? "";
      await contract.check(operationId, first);
      await expectReplies(operationId, 304, [[read, { key, headers: { "If-None-Match": tag } }]]);
    }
    await expectReplies("deleteCategory", 204, [[one, { method: "DELETE", key }]]);
  });

  it("400, 401, 403, 404, 409, 412, 413 and 415", MANY_REQUESTS, async () => {
    const made = await category("Refusing");
    const one = `/v1/categories/${made.id}`;
    const stale = { headers: { "If-Match": '"9"' } };
    await expectReplies("listCategories", 400, [["/v1/categories?limit=0", { key }]]);
    await expectReplies("createCategory", 400, [["/v1/categories", json("POST", { name: "" })]]);
    await expectReplies("updateCategory", 400, [[one, json("PATCH", { name: null })]]);
    await expectReplies("deleteCategory", 400, [
      [one, { method: "DELETE", key, headers: { "If-Match": "x" } }],
    ]);
    await expectReplies("listCategories", 401, [["/v1/categories", {}]]);
    await expectReplies("getCategory", 401, [[one, {}]]);
    await expectReplies("createCategory", 401, [
      ["/v1/categories", { ...json("POST", { name: "X" }), key: undefined }],
    ]);
    await expectReplies("updateCategory", 401, [
      [one, { ...json("PATCH", { name: "X" }), key: undefined }],
    ]);
    await expectReplies("deleteCategory", 401, [[one, { method: "DELETE" }]]);
    await expectReplies("updateCategory", 403, [
      [one, json("PATCH", { name: "X" }, { key: otherKey })],
    ]);
    await expectReplies("deleteCategory", 403, [["/v1/categories/1", { method: "DELETE", key }]]);
    await expectReplies("getCategory", 404, [["/v1/categories/0", { key }]]);
    await expectReplies("updateCategory", 404, [
      ["/v1/categories/9007199254740991", json("PATCH", { name: "X" })],
    ]);
    await expectReplies("deleteCategory", 404, [["/v1/categories/abc", { method: "DELETE", key }]]);
    await expectReplies("createCategory", 409, [
      ["/v1/categories", json("POST", { name: "cats" })],
    ]);
    await expectReplies("updateCategory", 409, [[one, json("PATCH", { name: "DOGS" })]]);
    await expectReplies("updateCategory", 412, [[one, json("PATCH", { name: "X" }, stale)]]);
    await expectReplies("deleteCategory", 412, [[one, { method: "DELETE", key, ...stale }]]);
    await expectReplies("createCategory", 413, [
      ["/v1/categories", json("POST", { name: "x".repeat(17_000) })],
    ]);
    await expectReplies("updateCategory", 413, [
      [one, json("PATCH", { name: "x".repeat(17_000) })],
    ]);
    await expectReplies("createCategory", 415, [
      ["/v1/categories", raw("POST", '{"name":"X"}', "text/plain")],
    ]);
    await expectReplies("updateCategory", 415, [[one, raw("PATCH", '{"name":"X"}', "text/plain")]]);
    const pet = await api("/v1/pets", json("POST", { name: "Member", categoryId: made.id }));
    await contract.check("createPet", pet);
    await expectReplies("deleteCategory", 409, [[one, { method: "DELETE", key }]]);
  });
});

describe("shelters", () => {
  it(
    "200 and 304, paged, with the ETag of each shelter; 400, 401 and 404",
    MANY_REQUESTS,
    async () => {
      const made = await madeShelter(keyHash);
      let path: string | undefined = "/v1/shelters?limit=1";
      for (let pages = 0; path && pages < 3; pages++) {
        const reply = await api(path, { key });
        const link = reply.headers.get("Link");
        await contract.check("listShelters", reply);
        const next = link ? /<([^>]+)>; rel="next"/.exec(link)?.[1] : undefined;
        path = next ? new URL(next).pathname + new URL(next).search : undefined;
      }
      const one = `/v1/shelters/${made.id}`;
      await expectReplies("getShelter", 200, [[one, { key }]]);
      for (const [operationId, read] of [
        ["listShelters", "/v1/shelters?country=GB"],
        ["getShelter", one],
      ] as const) {
        const first = await api(read, { key });
        const tag = first.headers.get("ETag") ?? "";
        await contract.check(operationId, first);
        await expectReplies(operationId, 304, [[read, { key, headers: { "If-None-Match": tag } }]]);
      }
      await expectReplies("listShelters", 400, [
        ["/v1/shelters?limit=0", { key }],
        ["/v1/shelters?country=gb", { key }],
      ]);
      await expectReplies("listShelters", 401, [["/v1/shelters", {}]]);
      await expectReplies("getShelter", 401, [[one, {}]]);
      await expectReplies("getShelter", 404, [
        ["/v1/shelters/0", { key }],
        ["/v1/shelters/9007199254740991", { key }],
      ]);
    },
  );
});

describe("the shelters' writes", () => {
  const shelterBody = (name: string) => ({
    name,
    email: "contract@shelter.example",
    address: { city: "Lisbon", country: "PT" },
    latitude: 38.7223,
    longitude: -9.1393,
  });

  it(
    "201, 200 and 204, with the ETag of the shelter; 400, 401, 403, 404, 409, 412, 413, 415 and 422",
    MANY_REQUESTS,
    async () => {
      const made = (await contract.check(
        "createShelter",
        await api("/v1/shelters", json("POST", shelterBody("Contracted"))),
      )) as { id: number };
      const one = `/v1/shelters/${made.id}`;
      const stale = { headers: { "If-Match": '"9"' } };
      await expectReplies("updateShelter", 200, [
        [one, json("PATCH", { phone: "+351 21 000 0000" })],
        [one, raw("PATCH", '{"address":{"street":null}}', "application/merge-patch+json")],
      ]);
      await expectReplies("createShelter", 400, [["/v1/shelters", json("POST", { name: "X" })]]);
      await expectReplies("updateShelter", 400, [[one, json("PATCH", { address: null })]]);
      await expectReplies("deleteShelter", 400, [
        [one, { method: "DELETE", key, headers: { "If-Match": "x" } }],
      ]);
      await expectReplies("createShelter", 401, [
        ["/v1/shelters", { ...json("POST", shelterBody("X")), key: undefined }],
      ]);
      await expectReplies("updateShelter", 401, [
        [one, { ...json("PATCH", { name: "X" }), key: undefined }],
      ]);
      await expectReplies("deleteShelter", 401, [[one, { method: "DELETE" }]]);
      await expectReplies("updateShelter", 403, [
        [one, json("PATCH", { name: "X" }, { key: otherKey })],
      ]);
      await expectReplies("deleteShelter", 403, [[one, { method: "DELETE", key: otherKey }]]);
      await expectReplies("updateShelter", 404, [["/v1/shelters/0", json("PATCH", { name: "X" })]]);
      await expectReplies("deleteShelter", 404, [["/v1/shelters/abc", { method: "DELETE", key }]]);
      await expectReplies("updateShelter", 412, [[one, json("PATCH", { name: "X" }, stale)]]);
      await expectReplies("deleteShelter", 412, [[one, { method: "DELETE", key, ...stale }]]);
      await expectReplies("createShelter", 413, [
        ["/v1/shelters", json("POST", shelterBody("x".repeat(17_000)))],
      ]);
      await expectReplies("updateShelter", 413, [
        [one, json("PATCH", { name: "x".repeat(17_000) })],
      ]);
      await expectReplies("createShelter", 415, [
        ["/v1/shelters", raw("POST", JSON.stringify(shelterBody("X")), "text/plain")],
      ]);
      await expectReplies("updateShelter", 415, [
        [one, raw("PATCH", '{"name":"X"}', "text/plain")],
      ]);
      const keyed = { headers: { "Idempotency-Key": `contract-${crypto.randomUUID()}` } };
      await contract.check(
        "createShelter",
        await api("/v1/shelters", json("POST", shelterBody("Keyed"), keyed)),
      );
      await expectReplies("createShelter", 422, [
        ["/v1/shelters", json("POST", shelterBody("Other"), keyed)],
      ]);
      const pet = await api(
        "/v1/pets",
        json("POST", { name: "Lodger", categoryId: 1, shelterId: made.id }),
      );
      const lodger = (await contract.check("createPet", pet)) as { id: number };
      await expectReplies("deleteShelter", 409, [[one, { method: "DELETE", key }]]);
      await expectReplies("deletePet", 204, [[`/v1/pets/${lodger.id}`, { method: "DELETE", key }]]);
      await expectReplies("deleteShelter", 204, [[one, { method: "DELETE", key }]]);
      const full = await seedKey();
      for (let i = 0; i < 2; i++) {
        const reply = await api(
          "/v1/shelters",
          json("POST", shelterBody(`Full ${i}`), { key: full.key }),
        );
        expect(reply.status).toBe(i === 0 ? 201 : 409);
        await contract.check("createShelter", reply);
      }
    },
  );
});

describe("429 and 503 for every catalogue operation", () => {
  const cases: [string, string, ApiRequestInit][] = [
    ["updatePet", "/v1/pets/1", { method: "PATCH", json: { name: "X" } }],
    ["deletePet", "/v1/pets/1", { method: "DELETE" }],
    ["listCategories", "/v1/categories", {}],
    ["getCategory", "/v1/categories/1", {}],
    ["createCategory", "/v1/categories", { method: "POST", json: { name: "Limited" } }],
    ["updateCategory", "/v1/categories/1", { method: "PATCH", json: { name: "X" } }],
    ["deleteCategory", "/v1/categories/1", { method: "DELETE" }],
    ["listShelters", "/v1/shelters", {}],
    ["getShelter", "/v1/shelters/1", {}],
    [
      "createShelter",
      "/v1/shelters",
      {
        method: "POST",
        json: {
          name: "Limited",
          email: "limited@shelter.example",
          address: { city: "Porto", country: "PT" },
          latitude: 41.1579,
          longitude: -8.6291,
        },
      },
    ],
    ["updateShelter", "/v1/shelters/1", { method: "PATCH", json: { name: "X" } }],
    ["deleteShelter", "/v1/shelters/1", { method: "DELETE" }],
  ];

  it("answers 429 once a tiny Enterprise budget is spent", MANY_REQUESTS, async () => {
    // A day of one request: no new minute reopens the budget mid-test.
    for (const [operationId, path, init] of cases) {
      const { key: tiny } = await seedKey({
        plan: "enterprise",
        limits: { perMinute: 1, perDay: 1 },
      });
      await contract.check(operationId, await api(path, { ...init, key: tiny }));
      await expectReplies(operationId, 429, [[path, { ...init, key: tiny }]]);
    }
  });

  describe("when storage fails", () => {
    const logs = captureLogs();

    it("answers 503 for a failing D1 and a failing rate limiter", MANY_REQUESTS, async () => {
      for (const [operationId, path, init] of cases) {
        for (const bindings of [{ DB: failingD1() }, { RATE_LIMITER: failingLimiter() }]) {
          await expectReplies(operationId, 503, [[path, { ...init, key, bindings }]]);
        }
      }
      expect(logs.lines).toContainEqual(storageFailure("D1"));
      expect(logs.lines).toContainEqual(storageFailure("Durable Object"));
    });
  });
});
