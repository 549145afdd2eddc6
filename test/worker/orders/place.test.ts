import { beforeAll, describe, expect, it } from "vitest";
import { messages } from "../../../src/errors.ts";
import { createPet, expectError } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import {
  expectAnimalsMatchOrders,
  expectOrder,
  type OrderBody,
  place,
  storedOrders,
  storedPetStatus,
} from "../support/orders.ts";
import { api } from "../support/request.ts";

let key: string;

beforeAll(async () => {
  ({ key } = await seedKey());
});

describe("POST /v1/store/orders", () => {
  it("places an order: 201, Location, the Order, and the animal becomes pending", async () => {
    const pet = await createPet(key, { name: "Rex", categoryId: 1 });
    const before = Date.now();
    const res = await place(key, pet.id);
    const order = (await res.json()) as OrderBody;
    expect(res.status).toBe(201);
    expectOrder(order);
    expect(order).toMatchObject({ petId: pet.id, status: "placed" });
    expect(order.updatedAt).toBe(order.createdAt);
    expect(Date.parse(order.createdAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(order.createdAt)).toBeLessThanOrEqual(Date.now());
    expect(res.headers.get("Location")).toBe(`/v1/store/orders/${order.id}`);
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await storedPetStatus(pet.id)).toBe("pending");

    const fetched = await api(`/v1/store/orders/${order.id}`, { key });
    expect(await fetched.json()).toEqual(order);
    await expectAnimalsMatchOrders([pet.id]);
  });

  it("shows the ordered animal as pending in the animals' listing", async () => {
    const pet = await createPet(key, { name: "Listed", categoryId: 2 });
    await (await place(key, pet.id)).json();
    const res = await api("/v1/pets?status=pending&limit=100", { key });
    const pending = (await res.json()) as { id: number; status: string }[];
    expect(pending).toContainEqual({ ...pet, status: "pending", etag: '"2"' });
    const available = (await (
      await api("/v1/pets?status=available&limit=100", { key })
    ).json()) as {
      id: number;
    }[];
    expect(available.map((animal) => animal.id)).not.toContain(pet.id);
  });

  it("refuses an animal that is pending or sold with 409 pet_not_available naming its status", async () => {
    const ordered = await createPet(key, { name: "Taken", categoryId: 3 });
    await (await place(key, ordered.id)).json();
    const sold = await createPet(key, { name: "Gone", categoryId: 3, status: "sold" });
    const pending = await createPet(key, { name: "Held", categoryId: 3, status: "pending" });
    for (const [petId, status] of [
      [ordered.id, "pending"],
      [sold.id, "sold"],
      [pending.id, "pending"],
    ] as const) {
      const body = await expectError(await place(key, petId), 409, "pet_not_available");
      expect(body.message).toBe(messages.petNotAvailable(status));
      expect(body.message).toContain(status);
      expect(await storedPetStatus(petId)).toBe(status);
    }
    expect(await storedOrders([ordered.id, sold.id, pending.id])).toHaveLength(1);
  });

  it("answers 404 for an animal that does not exist, and places nothing", async () => {
    const body = await expectError(await place(key, 9_007_199_254_740_991), 404, "not_found");
    expect(body.message).toBe("No animal has this identifier.");
    expect(await storedOrders([9_007_199_254_740_991])).toEqual([]);
  });
});

describe("POST /v1/store/orders: bad input", () => {
  const send = (body: string, contentType = "application/json") =>
    api("/v1/store/orders", {
      method: "POST",
      key,
      body,
      headers: { "Content-Type": contentType },
    });

  it("refuses a body that is not a NewOrder with 400 naming the field", async () => {
    const cases: [unknown, string[]][] = [
      [{}, ["petId"]],
      [{ petId: 0 }, ["petId"]],
      [{ petId: -1 }, ["petId"]],
      [{ petId: 1.5 }, ["petId"]],
      [{ petId: "1" }, ["petId"]],
      [{ petId: 9_007_199_254_740_992 }, ["petId"]],
      [{ petId: 1, status: "placed" }, ["status"]],
      [{ petId: 1, id: 7 }, ["id"]],
      [[], ["body"]],
    ];
    for (const [json, paths] of cases) {
      await expectError(await send(JSON.stringify(json)), 400, "invalid_request", { paths });
    }
  });

  it("refuses what is not JSON: 400 invalid_json, 415 for another media type, 413 when too big", async () => {
    await expectError(await send("{"), 400, "invalid_json");
    await expectError(await send(""), 400, "invalid_json");
    await expectError(await send('{"petId":1,"petId":2}'), 400, "invalid_json");
    await expectError(await send('{"petId":1}', "text/plain"), 415, "unsupported_media_type");
    await expectError(
      await send(JSON.stringify({ petId: 1, pad: "x".repeat(17 * 1024) })),
      413,
      "payload_too_large",
    );
  });

  it("refuses malformed Idempotency-Keys with 400", async () => {
    const pet = await createPet(key, { name: "Keyed", categoryId: 4 });
    for (const bad of ["", "k".repeat(256), "caf\u00e9"]) {
      const res = await place(key, pet.id, { headers: { "Idempotency-Key": bad } });
      await expectError(res, 400, "invalid_request", { paths: ["Idempotency-Key"] });
    }
    expect(await storedPetStatus(pet.id)).toBe("available");
  });
});

describe("the store's auth and routes", () => {
  it("answers 401 on every operation without a working key, and changes nothing", async () => {
    const pet = await createPet(key, { name: "Guarded", categoryId: 5 });
    const order = (await (await place(key, pet.id)).json()) as OrderBody;
    const unknownKey = `ps_test_${"A".repeat(32)}`;
    for (const sent of [undefined, unknownKey]) {
      const replies = [
        await api("/v1/store/orders", { key: sent }),
        await api("/v1/store/orders", { method: "POST", key: sent, json: { petId: pet.id } }),
        await api(`/v1/store/orders/${order.id}`, { key: sent }),
        await api(`/v1/store/orders/${order.id}/complete`, { method: "POST", key: sent }),
        await api(`/v1/store/orders/${order.id}/cancel`, { method: "POST", key: sent }),
      ];
      for (const res of replies) {
        expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer realm="petstore"/);
        await expectError(res, 401, "unauthorized");
      }
    }
    const revoked = await seedKey({ revoked: true });
    await expectError(
      await api(`/v1/store/orders/${order.id}/complete`, { method: "POST", key: revoked.key }),
      401,
      "unauthorized",
    );
    expect(await storedPetStatus(pet.id)).toBe("pending");
    await expectAnimalsMatchOrders([pet.id]);
  });

  it("answers 405 with Allow to methods a store path does not serve", async () => {
    for (const [path, method, allow] of [
      ["/v1/store/orders", "DELETE", "GET, HEAD, POST"],
      ["/v1/store/orders/1", "POST", "GET, HEAD"],
      ["/v1/store/orders/1", "DELETE", "GET, HEAD"],
      ["/v1/store/orders/1/complete", "GET", "POST"],
      ["/v1/store/orders/1/cancel", "PUT", "POST"],
    ] as const) {
      const res = await api(path, { method, key });
      expect(res.headers.get("Allow"), `${method} ${path}`).toBe(allow);
      await expectError(res, 405, "method_not_allowed");
    }
  });
});
