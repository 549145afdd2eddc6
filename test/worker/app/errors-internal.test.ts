import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPet, expectError } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { captureLogs, storageFailure } from "../support/logs.ts";
import { api, postJson } from "../support/request.ts";

// This file breaks the database on purpose: a real storage failure, not a mock,
// must reach the client as a bland, retryable 503. The tables are moved aside,
// not dropped, and put back after, for the files that share this runtime.
let key: string;
let petId: number;
const logs = captureLogs();

beforeAll(async () => {
  ({ key } = await seedKey());
  petId = (await createPet(key, { name: "Doomed", categoryId: 3 })).id;
  await env.DB.exec("ALTER TABLE orders RENAME TO orders_aside");
  await env.DB.exec("ALTER TABLE pets RENAME TO pets_aside");
});
afterAll(async () => {
  await env.DB.exec("ALTER TABLE pets_aside RENAME TO pets");
  await env.DB.exec("ALTER TABLE orders_aside RENAME TO orders");
});

describe("a failing query", () => {
  it.each<[string, () => Promise<Response>]>([
    ["listPets", () => api("/v1/pets", { key })],
    ["createPet", () => postJson("/v1/pets", key, { name: "Rex", categoryId: 1 })],
    ["getPet", () => api(`/v1/pets/${petId}`, { key })],
    ["listOrders", () => api("/v1/store/orders", { key })],
    ["placeOrder", () => postJson("/v1/store/orders", key, { petId })],
    ["getOrder", () => api("/v1/store/orders/1", { key })],
    ["completeOrder", () => api("/v1/store/orders/1/complete", { method: "POST", key })],
    ["cancelOrder", () => api("/v1/store/orders/1/cancel", { method: "POST", key })],
  ])("answers %s with 503 unavailable and no SQL, table or library name", async (_, send) => {
    const res = await send();
    expect(res.headers.get("Retry-After")).toMatch(/^[1-9][0-9]*$/);
    const error = await expectError(res, 503, "unavailable");
    expect(error.message).not.toMatch(/pets|orders|table|query|select|insert|update/i);
    expect(logs.lines).toEqual([
      storageFailure("D1"),
      expect.objectContaining({ level: "error", message: "request", status: 503 }),
    ]);
  });

  it("still validates and authenticates before reaching storage", async () => {
    await expectError(await api("/v1/pets?limit=0", { key }), 400, "invalid_request", {
      paths: ["limit"],
    });
    await expectError(await api("/v1/pets/abc", { key }), 404, "not_found");
  });
});
