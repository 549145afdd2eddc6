import { beforeAll, describe, expect, it } from "vitest";
import { v1Routes } from "../../../src/routes/v1-routes.ts";
import { SCOPES, type Scope } from "../../../src/scopes.ts";
import { createPet, expectError } from "../support/assertions.ts";
import { type SeededKey, seedKey } from "../support/keys.ts";
import { OPERATION_SCOPES } from "../support/openapi-contract.ts";
import { placeOrder } from "../support/orders.ts";
import { api, header, postJson, send } from "../support/request.ts";
import { feed, receiverUrl, uniqueName } from "../support/webhooks.ts";

/*
 * Every operation the route tables hold is tried with and without its
 * scope; the first test holds the tables to the contract's table of least
 * privilege, so a route without a scope there (a new one, say) fails it.
 */

/** Every `/v1` operation the app serves, from the route tables themselves. */
const operations = Object.values(v1Routes({ allowLoopbackHttp: true })).flatMap((table) =>
  Object.entries(table).map(([operationId, route]) => ({
    operationId,
    scope: route.scope,
    method: route.method.toUpperCase(),
    // Any identifier will do: the scope is checked before anything looks at it.
    path: `/v1${route.path.replace(/\{\w+\}/g, "1")}`,
  })),
);

const challenge = (needed: string) =>
  `Bearer realm="petstore", error="insufficient_scope", scope="${needed}"`;

/** A key with every scope but one, and one with that one alone, for each scope. */
const without = new Map<Scope, SeededKey>();
const only = new Map<Scope, SeededKey>();

beforeAll(async () => {
  for (const scope of SCOPES) {
    without.set(scope, await seedKey({ scopes: SCOPES.filter((held) => held !== scope) }));
    only.set(scope, await seedKey({ scopes: [scope] }));
  }
});

const keyOf = (keys: Map<Scope, SeededKey>, scope: Scope) => keys.get(scope)?.key ?? "";

describe("the route tables", () => {
  it("declare for every operation the scope the contract gives it", () => {
    const declared = Object.fromEntries(operations.map((op) => [op.operationId, op.scope]));
    const expected = Object.fromEntries(
      operations.map((op) => [
        op.operationId,
        OPERATION_SCOPES[op.operationId] ?? "(none in the contract)",
      ]),
    );
    expect(declared).toEqual(expected);
  });
});

describe("every operation — allowed with its scope", () => {
  it.each(operations)("$operationId with $scope alone", async ({ scope, method, path }) => {
    const reply = await send(path, { method, key: keyOf(only, scope) });
    expect(reply.status).not.toBe(401);
    expect(reply.body.code).not.toBe("insufficient_scope");
  });
});

describe("every operation — refused without its scope", () => {
  it.each(operations)("$operationId without $scope: 403", async ({ scope, method, path }) => {
    const response = await api(path, { method, key: keyOf(without, scope) });
    expect(response.headers.get("WWW-Authenticate")).toBe(challenge(scope));
    const body = await expectError(response, 403, "insufficient_scope");
    expect(body.message).toContain(scope);
  });
});

describe("when the scope is checked", () => {
  it("after the limiter: the refused request counts against the key", async () => {
    const { key } = await seedKey({ plan: "free", scopes: ["pets:read"] });
    const first = await send("/v1/pets?limit=1", { key });
    const refused = await send("/v1/pets", { method: "POST", key, json: {} });
    const after = await send("/v1/pets?limit=1", { key });
    expect([first.status, refused.status, after.status]).toEqual([200, 403, 200]);
    expect(header(first, "X-RateLimit-Remaining")).toBe("59");
    expect(header(refused, "X-RateLimit-Remaining")).toBe("58");
    expect(header(after, "X-RateLimit-Remaining")).toBe("57");
  });

  it.each<[string, RequestInit & { json?: unknown }]>([
    ["a body that is not valid", { json: { name: "" } }],
    ["a body that is not JSON", { body: "{", headers: { "Content-Type": "application/json" } }],
    ["a body of another type", { body: "name=Rex", headers: { "Content-Type": "text/plain" } }],
    ["a body too large", { json: { name: "x".repeat(20_000), categoryId: 1 } }],
  ])("before the input's checks: %s still gets the 403", async (_, init) => {
    const key = keyOf(only, "pets:read");
    const response = await api("/v1/pets", { method: "POST", key, ...init });
    await expectError(response, 403, "insufficient_scope");
  });

  it("before the path's checks: an identifier that is not one still gets the 403", async () => {
    const response = await api("/v1/pets/not-an-id", {
      method: "DELETE",
      key: keyOf(only, "pets:read"),
    });
    await expectError(response, 403, "insufficient_scope");
  });
});

describe("order events need orders:read as well", () => {
  let reader: SeededKey;
  let blind: SeededKey;
  let orderId: number;

  beforeAll(async () => {
    reader = await seedKey({
      scopes: ["events:read", "orders:read", "orders:write", "pets:write"],
    });
    blind = await seedKey({
      account: reader.row.account.email,
      scopes: ["events:read", "webhooks:read", "webhooks:write"],
    });
    const pet = await createPet(reader.key, { name: uniqueName("ordered"), categoryId: 1 });
    orderId = (await placeOrder(reader.key, pet.id)).id;
  });

  it("the feed lists the account's order events only to a key that may read orders", async () => {
    const seen = await feed(reader.key);
    expect(seen.some((event) => event.type === "order.placed" && event.data.id === orderId)).toBe(
      true,
    );
    const unseen = await feed(blind.key);
    expect(unseen.some((event) => event.type.startsWith("order."))).toBe(false);
    expect(unseen.map((event) => event.id)).toEqual(
      seen.filter((event) => !event.type.startsWith("order.")).map((event) => event.id),
    );
    expect(await feed(blind.key, "order.*")).toEqual([]);
    expect(await feed(blind.key, "order.placed")).toEqual([]);
  });

  it("an endpoint's order.* types: 403 naming both scopes for a key without orders:read", async () => {
    const url = receiverUrl("ok", uniqueName("orders"));
    for (const types of [["order.*"], ["pet.*", "order.completed"]]) {
      const response = await postJson("/v1/webhooks", blind.key, { url, types });
      expect(response.headers.get("WWW-Authenticate")).toBe(
        challenge("webhooks:write orders:read"),
      );
      const body = await expectError(response, 403, "insufficient_scope");
      expect(body.message).toContain("orders:read");
      expect(body.message).not.toContain("webhooks:write");
    }
    const petsOnly = await send("/v1/webhooks", {
      method: "POST",
      key: blind.key,
      json: { url, types: ["pet.*"] },
    });
    expect(petsOnly.status).toBe(201);
    const id = Number(petsOnly.body.id);
    const widened = await api(`/v1/webhooks/${id}`, {
      method: "PATCH",
      key: blind.key,
      json: { types: ["pet.*", "order.*"] },
    });
    await expectError(widened, 403, "insufficient_scope");
    const renamed = await send(`/v1/webhooks/${id}`, {
      method: "PATCH",
      key: blind.key,
      json: { url: receiverUrl("ok", uniqueName("moved")) },
    });
    expect(renamed.status).toBe(200);
  });

  it("an endpoint's order.* types are taken from a key that has both scopes", async () => {
    const both = await seedKey({ scopes: ["webhooks:write", "orders:read"] });
    const made = await send("/v1/webhooks", {
      method: "POST",
      key: both.key,
      json: { url: receiverUrl("ok", uniqueName("both")), types: ["order.*"] },
    });
    expect(made.status).toBe(201);
  });
});

describe("scopes when a key is made", () => {
  const ADMIN = { Authorization: "Bearer test-admin-token-of-at-least-32-characters" };

  it.each<[string, unknown]>([
    ["an empty list", []],
    ["an unknown scope", ["pets:read", "pets:admin"]],
    ["a scope twice", ["pets:read", "pets:read"]],
    ["not a list", "pets:read"],
  ])("refuses %s with 400", async (_, scopes) => {
    const response = await api("/admin/keys", { method: "POST", headers: ADMIN, json: { scopes } });
    await expectError(response, 400, "invalid_request", {
      paths: [expect.stringMatching(/^scopes/)],
    });
  });

  it("gives a key made without a list all seven, and one made with a list only those", async () => {
    const all = await send("/admin/keys", { method: "POST", headers: ADMIN, json: {} });
    expect(all.body.scopes).toEqual([...SCOPES]);
    const some = await send("/admin/keys", {
      method: "POST",
      headers: ADMIN,
      json: { scopes: ["orders:write", "pets:read"] },
    });
    expect(some.status).toBe(201);
    expect(some.body.scopes).toEqual(["orders:write", "pets:read"]);
    const writer = String(some.body.key);
    expect((await send("/v1/store/orders", { key: writer })).status).toBe(403);
    expect((await send("/v1/pets?limit=1", { key: writer })).status).toBe(200);
  });
});
