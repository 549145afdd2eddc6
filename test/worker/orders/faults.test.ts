import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createPet, expectError } from "../support/assertions.ts";
import { d1FailingBatchAt, failingD1 } from "../support/faulty-bindings.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { captureLogs, storageFaultLines } from "../support/logs.ts";
import {
  expectAnimalsMatchOrders,
  move,
  type OrderBody,
  place,
  placeOrder,
  storedOrders,
  storedPetStatus,
} from "../support/orders.ts";
import { type ApiRequestInit, api } from "../support/request.ts";

/** How many statements each batch holds: the fault is injected at every one of them. */
const PLACE_STATEMENTS = 3;
const KEYED_PLACE_STATEMENTS = 8;
const MOVE_STATEMENTS = 3;
const KEYED_CREATE_STATEMENTS = 6;

let key: string;

const logs = captureLogs();

beforeAll(async () => {
  ({ key } = await seedUnlimitedKey());
});

async function expectUnavailable(res: Response): Promise<void> {
  expect(res.headers.get("Retry-After")).toMatch(/^[1-9][0-9]*$/);
  await expectError(res, 503, "unavailable");
}

async function recordsOf(idempotencyKey: string): Promise<number> {
  const row = await env.DB.prepare(
    "SELECT count(*) AS n FROM idempotency_records WHERE idempotency_key = ?",
  )
    .bind(idempotencyKey)
    .first<{ n: number }>();
  return row?.n ?? -1;
}

const broken = (index: number): ApiRequestInit => ({
  key,
  bindings: { DB: d1FailingBatchAt(index) },
});

describe("a storage fault in the middle of a move", () => {
  it("placing: 503 at every statement, and the animal stays available with no order", async () => {
    const pet = await createPet(key, { name: "Fragile", categoryId: 1 });
    for (let index = 0; index < PLACE_STATEMENTS; index++) {
      await expectUnavailable(
        await api("/v1/store/orders", {
          ...broken(index),
          method: "POST",
          json: { petId: pet.id },
        }),
      );
      expect(await storedPetStatus(pet.id)).toBe("available");
      expect(await storedOrders([pet.id])).toEqual([]);
    }
    await expect(placeOrder(key, pet.id)).resolves.toMatchObject({ status: "placed" });
    expect(logs.lines).toEqual(storageFaultLines("D1", PLACE_STATEMENTS));
  });

  it("placing with an Idempotency-Key: 503 at every statement, no order, and the key still free", async () => {
    const pet = await createPet(key, { name: "Keyed fragile", categoryId: 2 });
    const headers = { "Idempotency-Key": "fault-place" };
    for (let index = 0; index < KEYED_PLACE_STATEMENTS; index++) {
      await expectUnavailable(
        await api("/v1/store/orders", {
          ...broken(index),
          method: "POST",
          json: { petId: pet.id },
          headers,
        }),
      );
      expect(await storedPetStatus(pet.id)).toBe("available");
      expect(await storedOrders([pet.id])).toEqual([]);
      expect(await recordsOf("fault-place")).toBe(0);
    }
    const retried = await place(key, pet.id, { headers });
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBeNull();
    await retried.json();
    expect(await recordsOf("fault-place")).toBe(1);
    expect(logs.lines).toEqual(storageFaultLines("D1", KEYED_PLACE_STATEMENTS));
  });

  it.each(["complete", "cancel"] as const)(
    "%s: 503 at every statement, and the order stays placed, the animal pending",
    async (action) => {
      const pet = await createPet(key, { name: `Fragile ${action}`, categoryId: 3 });
      const order = await placeOrder(key, pet.id);
      for (let index = 0; index < MOVE_STATEMENTS; index++) {
        await expectUnavailable(
          await api(`/v1/store/orders/${order.id}/${action}`, { ...broken(index), method: "POST" }),
        );
        expect(await storedOrders([pet.id])).toMatchObject([{ id: order.id, status: "placed" }]);
        expect(await storedPetStatus(pet.id)).toBe("pending");
      }
      const moved = (await (await move(key, order.id, action)).json()) as OrderBody;
      expect(moved.status).toBe(action === "complete" ? "completed" : "cancelled");
      await expectAnimalsMatchOrders([pet.id]);
      expect(logs.lines).toEqual(storageFaultLines("D1", MOVE_STATEMENTS));
    },
  );

  it("a keyed create: 503 at every statement, no animal, and the key still free", async () => {
    const headers = { "Content-Type": "application/json", "Idempotency-Key": "fault-create" };
    const body = JSON.stringify({ name: "Never", categoryId: 4 });
    const count = async () =>
      (
        await env.DB.prepare("SELECT count(*) AS n FROM pets WHERE category_id = 53").first<{
          n: number;
        }>()
      )?.n;
    for (let index = 0; index < KEYED_CREATE_STATEMENTS; index++) {
      await expectUnavailable(
        await api("/v1/pets", { ...broken(index), method: "POST", body, headers }),
      );
      expect(await count()).toBe(0);
      expect(await recordsOf("fault-create")).toBe(0);
    }
    const created = await api("/v1/pets", { key, method: "POST", body, headers });
    expect(created.status).toBe(201);
    expect(created.headers.get("Idempotent-Replayed")).toBeNull();
    await created.json();
    expect(logs.lines).toEqual(storageFaultLines("D1", KEYED_CREATE_STATEMENTS));
  });
});

describe("a D1 that fails outright", () => {
  it("answers 503 on every store operation and changes nothing", async () => {
    const pet = await createPet(key, { name: "Outage", categoryId: 5 });
    const order = await placeOrder(key, pet.id);
    const down = { key, bindings: { DB: failingD1() } };
    for (const res of [
      await api("/v1/store/orders", down),
      await api(`/v1/store/orders/${order.id}`, down),
      await api("/v1/store/orders", { ...down, method: "POST", json: { petId: pet.id } }),
      await api(`/v1/store/orders/${order.id}/complete`, { ...down, method: "POST" }),
      await api(`/v1/store/orders/${order.id}/cancel`, { ...down, method: "POST" }),
    ]) {
      await expectUnavailable(res);
    }
    expect(await storedOrders([pet.id])).toMatchObject([{ id: order.id, status: "placed" }]);
    expect(await storedPetStatus(pet.id)).toBe("pending");
    expect(logs.lines).toEqual(storageFaultLines("D1", 5));
  });
});
