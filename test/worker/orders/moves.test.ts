import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { messages } from "../../../src/errors.ts";
import { createPet, expectError } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { captureLogs, defectLines } from "../support/logs.ts";
import {
  expectAnimalsMatchOrders,
  expectOrder,
  move,
  type OrderBody,
  type OrderStatus,
  placeOrder,
  storedOrders,
  storedPetStatus,
} from "../support/orders.ts";
import { api, postJson } from "../support/request.ts";

let key: string;

beforeAll(async () => {
  ({ key } = await seedKey());
});

/** A fresh animal with an order in the given status, reached through the API. */
async function orderIn(status: OrderStatus): Promise<OrderBody> {
  const pet = await createPet(key, { name: `For ${status}`, categoryId: 3 });
  const order = await placeOrder(key, pet.id);
  if (status === "placed") return order;
  const res = await move(key, order.id, status === "completed" ? "complete" : "cancel");
  const moved = (await res.json()) as OrderBody;
  expect(res.status, JSON.stringify(moved)).toBe(200);
  return moved;
}

describe("the state table", () => {
  it("complete: placed → completed, the animal pending → sold", async () => {
    const placed = await orderIn("placed");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await move(key, placed.id, "complete");
    const order = (await res.json()) as OrderBody;
    expect(res.status).toBe(200);
    expectOrder(order);
    expect(order).toMatchObject({
      id: placed.id,
      petId: placed.petId,
      status: "completed",
      createdAt: placed.createdAt,
    });
    expect(Date.parse(order.updatedAt)).toBeGreaterThan(Date.parse(placed.createdAt));
    expect(await storedPetStatus(placed.petId)).toBe("sold");
    expect(await (await api(`/v1/store/orders/${placed.id}`, { key })).json()).toEqual(order);
    await expectAnimalsMatchOrders([placed.petId]);
  });

  it("cancel: placed → cancelled, the animal pending → available", async () => {
    const placed = await orderIn("placed");
    const res = await move(key, placed.id, "cancel");
    const order = (await res.json()) as OrderBody;
    expect(res.status).toBe(200);
    expectOrder(order);
    expect(order).toMatchObject({ id: placed.id, petId: placed.petId, status: "cancelled" });
    expect(await storedPetStatus(placed.petId)).toBe("available");
    await expectAnimalsMatchOrders([placed.petId]);
  });

  it("lets a cancelled animal be ordered again, and then sold", async () => {
    const cancelled = await orderIn("cancelled");
    const again = await placeOrder(key, cancelled.petId);
    expect(again.id).toBeGreaterThan(cancelled.id);
    expect(await storedPetStatus(cancelled.petId)).toBe("pending");
    await (await move(key, again.id, "complete")).json();
    expect(await storedPetStatus(cancelled.petId)).toBe("sold");
    expect((await storedOrders([cancelled.petId])).map((order) => order.status)).toEqual([
      "cancelled",
      "completed",
    ]);
    await expectAnimalsMatchOrders([cancelled.petId]);
  });
});

describe("moves the table does not allow", () => {
  const refused: [OrderStatus, "complete" | "cancel", "completed" | "cancelled"][] = [
    ["completed", "complete", "completed"],
    ["completed", "cancel", "cancelled"],
    ["cancelled", "complete", "completed"],
    ["cancelled", "cancel", "cancelled"],
  ];

  it.each(refused)(
    "a %s order cannot %s: 409 invalid_transition naming its status, nothing changes",
    async (status, action, target) => {
      const order = await orderIn(status);
      const animal = await storedPetStatus(order.petId);
      const body = await expectError(await move(key, order.id, action), 409, "invalid_transition");
      expect(body.message).toBe(messages.invalidTransition(status, target));
      expect(body.message).toContain(`is ${status}`);
      expect(await (await api(`/v1/store/orders/${order.id}`, { key })).json()).toEqual(order);
      expect(await storedPetStatus(order.petId)).toBe(animal);
      await expectAnimalsMatchOrders([order.petId]);
    },
  );

  it("a pending or sold animal cannot be ordered (the table's first row needs `available`)", async () => {
    for (const status of ["placed", "completed"] as const) {
      const order = await orderIn(status);
      await expectError(
        await postJson("/v1/store/orders", key, { petId: order.petId }),
        409,
        "pet_not_available",
      );
      expect(await storedOrders([order.petId])).toHaveLength(1);
    }
  });

  it("answers 404 to moves of an order that does not exist or an id that is not valid", async () => {
    for (const orderId of ["9007199254740991", "0", "abc", "9007199254740992", "1.5", "-1"]) {
      for (const action of ["complete", "cancel"] as const) {
        await expectError(await move(key, orderId, action), 404, "not_found");
      }
    }
  });

  describe("a defect", () => {
    const logs = captureLogs();

    it("answers 500 and changes nothing when an order's animal was changed outside the API", async () => {
      const order = await orderIn("placed");
      await env.DB.prepare("UPDATE pets SET status = 'available' WHERE id = ?")
        .bind(order.petId)
        .run();
      await expectError(await move(key, order.id, "complete"), 500, "internal_error");
      expect(await storedOrders([order.petId])).toMatchObject([{ status: "placed" }]);
      expect(await storedPetStatus(order.petId)).toBe("available");
      expect(logs.lines).toEqual(defectLines(/is placed but its animal is not pending/));
    });
  });
});
