import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { type CreatedPet, createPet, expectError, freshIp } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { move, type OrderBody, place, placeOrder, storedOrders } from "../support/orders.ts";
import { type ApiRequestInit, api, jsonOf, send } from "../support/request.ts";

let key: string;
let otherKey: string;

beforeAll(async () => {
  ({ key } = await seedKey());
  ({ key: otherKey } = await seedKey());
});

function remove(id: number | string, init: ApiRequestInit = {}): Promise<Response> {
  return api(`/v1/pets/${id}`, { method: "DELETE", key, ...init });
}

async function storedRow(id: number) {
  return env.DB.prepare("SELECT status, version, deleted_at AS deletedAt FROM pets WHERE id = ?")
    .bind(id)
    .first<{ status: string; version: number; deletedAt: number | null }>();
}

describe("DELETE /v1/pets/{petId} — happy path", () => {
  it("answers 204 with no body, and writes pet.deleted with the animal as it was", async () => {
    const pet = await createPet(key, { name: "Leaving", categoryId: 3, status: "pending" });
    const res = await remove(pet.id);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    const { results } = await env.DB.prepare(
      "SELECT type, data FROM events WHERE json_extract(data, '$.id') = ? AND type LIKE 'pet.%' ORDER BY seq",
    )
      .bind(pet.id)
      .all<{ type: string; data: string }>();
    expect(results.map(({ type, data }) => [type, JSON.parse(data)])).toEqual([
      ["pet.created", pet],
      ["pet.deleted", pet],
    ]);
  });

  it("makes the animal 404 everywhere, unlisted, unfindable and unorderable", async () => {
    const pet = await createPet(key, { name: "Vanishing Act", categoryId: 6 });
    expect((await remove(pet.id)).status).toBe(204);
    await expectError(await api(`/v1/pets/${pet.id}`, { key }), 404, "not_found");
    await expectError(await remove(pet.id), 404, "not_found");
    const patched = await api(`/v1/pets/${pet.id}`, { method: "PATCH", key, json: { name: "X" } });
    await expectError(patched, 404, "not_found");
    await expectError(await place(key, pet.id), 404, "not_found");
    for (const query of [
      "?limit=100",
      `?id=${pet.id}`,
      "?q=vanishing",
      "?categoryId=6&limit=100",
      "?status=available&limit=100",
      "?q=act&status=available",
      "?direction=desc",
    ]) {
      const listed = await jsonOf<CreatedPet[]>(await api(`/v1/pets${query}`, { key }));
      expect(
        listed.map((animal) => animal.id),
        query,
      ).not.toContain(pet.id);
    }
    // Its row stays, as a tombstone: no later animal takes its id.
    expect(await storedRow(pet.id)).toMatchObject({ deletedAt: expect.any(Number), version: 1 });
    const next = await createPet(key, { name: "Next", categoryId: 6 });
    expect(next.id).toBeGreaterThan(pet.id);
  });

  it("keeps the petId of the orders that name it", async () => {
    const pet = await createPet(key, { name: "Once adopted", categoryId: 1 });
    const order = await placeOrder(key, pet.id);
    await (await move(key, order.id, "complete")).json();
    expect((await remove(pet.id)).status).toBe(204);
    const kept = await jsonOf<OrderBody>(await api(`/v1/store/orders/${order.id}`, { key }));
    expect(kept).toEqual({ ...kept, petId: pet.id, status: "completed" });
    expect(await storedOrders([pet.id])).toHaveLength(1);
  });

  it("deletes when If-Match names the current etag, or is *", async () => {
    for (const ifMatch of ['"1"', "*", 'W/"1", "1"']) {
      const pet = await createPet(key, { name: "Conditional", categoryId: 1 });
      const res = await remove(pet.id, { headers: { "If-Match": ifMatch } });
      expect(res.status, ifMatch).toBe(204);
      await res.arrayBuffer();
    }
  });
});

describe("DELETE /v1/pets/{petId} — refusals", () => {
  it.each(["9007199254740991", "0", "abc"])("answers 404 for the id %s", async (id) => {
    await expectError(await remove(id), 404, "not_found");
  });

  it("refuses another account's animal with 403 not_owner, and it stays", async () => {
    const pet = await createPet(key, { name: "Kept", categoryId: 1 });
    await expectError(await remove(pet.id, { key: otherKey }), 403, "not_owner");
    expect(await storedRow(pet.id)).toEqual({ status: "available", version: 1, deletedAt: null });
  });

  it("answers 412 for a stale If-Match and 400 for a malformed one; the animal stays", async () => {
    const pet = await createPet(key, { name: "Watched", categoryId: 1 });
    await (
      await api(`/v1/pets/${pet.id}`, { method: "PATCH", key, json: { name: "Seen" } })
    ).json();
    for (const ifMatch of ['"1"', 'W/"2"']) {
      await expectError(
        await remove(pet.id, { headers: { "If-Match": ifMatch } }),
        412,
        "precondition_failed",
      );
    }
    await expectError(
      await remove(pet.id, { headers: { "If-Match": "2" } }),
      400,
      "invalid_request",
      {
        paths: ["If-Match"],
      },
    );
    expect(await storedRow(pet.id)).toMatchObject({ version: 2, deletedAt: null });
  });

  it("answers 409 order_open, naming the order, while an order is placed; afterwards it may go", async () => {
    const pet = await createPet(key, { name: "Spoken for", categoryId: 1 });
    const order = await placeOrder(key, pet.id);
    const error = await expectError(await remove(pet.id), 409, "order_open");
    expect(error.message).toContain(`Order ${order.id}`);
    expect(await storedRow(pet.id)).toMatchObject({ status: "pending", deletedAt: null });
    await (await move(key, order.id, "cancel")).json();
    expect((await remove(pet.id)).status).toBe(204);
  });
});

describe("DELETE /v1/pets/{petId} — auth", () => {
  it("asks for a key first", async () => {
    const reply = await send("/v1/pets/1", {
      method: "DELETE",
      headers: { "CF-Connecting-IP": freshIp() },
    });
    expect(reply.status).toBe(401);
  });
});
