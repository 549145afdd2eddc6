import { beforeAll, describe, expect, it } from "vitest";
import { messages } from "../../../src/errors.ts";
import { createPet } from "../support/assertions.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import {
  expectAnimalsMatchOrders,
  type OrderBody,
  placeOrder,
  storedOrders,
  storedPetStatus,
} from "../support/orders.ts";
import { MANY_REQUESTS, type Reply, send } from "../support/request.ts";

let keys: string[];

beforeAll(async () => {
  const first = await seedUnlimitedKey();
  const second = await seedUnlimitedKey({ account: first.row.account.email });
  const other = await seedUnlimitedKey();
  keys = [first.key, second.key, other.key];
});

const statuses = (replies: Reply[]) => replies.map((reply) => reply.status).sort();

describe("orders under concurrency", () => {
  it(
    "20 parallel orders for one animal: exactly one 201 and 19 × 409; the animal is pending once",
    MANY_REQUESTS,
    async () => {
      const pet = await createPet(keys[0] ?? "", { name: "Popular", categoryId: 5 });
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          send("/v1/store/orders", {
            method: "POST",
            key: keys[i % keys.length],
            json: { petId: pet.id },
          }),
        ),
      );
      expect(statuses(replies)).toEqual([201, ...Array(19).fill(409)]);
      for (const refused of replies.filter((reply) => reply.status === 409)) {
        expect(refused.body).toMatchObject({
          code: "pet_not_available",
          message: messages.petNotAvailable("pending"),
        });
      }
      const winner = replies.find((reply) => reply.status === 201)?.body as unknown as OrderBody;
      const orders = await storedOrders([pet.id]);
      expect(orders).toMatchObject([{ id: winner.id, status: "placed" }]);
      expect(await storedPetStatus(pet.id)).toBe("pending");
      await expectAnimalsMatchOrders([pet.id]);
    },
  );

  it(
    "a complete racing a cancel: one 200 and one 409, and the animal ends sold or available to match",
    MANY_REQUESTS,
    async () => {
      for (let round = 0; round < 10; round++) {
        const pet = await createPet(keys[0] ?? "", { name: `Race ${round}`, categoryId: 6 });
        const order = await placeOrder(keys[round % 2] ?? "", pet.id);
        const [complete, cancel] = await Promise.all(
          (["complete", "cancel"] as const).map((action) =>
            send(`/v1/store/orders/${order.id}/${action}`, {
              method: "POST",
              key: keys[(round + (action === "cancel" ? 1 : 0)) % 2],
            }),
          ),
        );
        if (!complete || !cancel) throw new Error("a reply is missing");
        expect([complete.status, cancel.status].sort()).toEqual([200, 409]);
        const won = complete.status === 200 ? "completed" : "cancelled";
        const lost = complete.status === 200 ? cancel : complete;
        expect(lost.body).toMatchObject({
          code: "invalid_transition",
          message: messages.invalidTransition(won, won === "completed" ? "cancelled" : "completed"),
        });
        expect(await storedOrders([pet.id])).toMatchObject([{ id: order.id, status: won }]);
        expect(await storedPetStatus(pet.id)).toBe(won === "completed" ? "sold" : "available");
        await expectAnimalsMatchOrders([pet.id]);
      }
    },
  );

  it(
    "parallel orders, completes and cancels over a few animals leave every animal matching its orders",
    MANY_REQUESTS,
    async () => {
      const pets = await Promise.all(
        [0, 1, 2].map((i) => createPet(keys[0] ?? "", { name: `Busy ${i}`, categoryId: 7 })),
      );
      const placed = await Promise.all(pets.map((pet) => placeOrder(keys[2] ?? "", pet.id)));
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) => {
          const order = placed[i % placed.length] as OrderBody;
          const pet = pets[i % pets.length];
          const key = keys[2] ?? "";
          if (i % 3 === 0)
            return send(`/v1/store/orders/${order.id}/complete`, { method: "POST", key });
          if (i % 3 === 1)
            return send(`/v1/store/orders/${order.id}/cancel`, { method: "POST", key });
          return send("/v1/store/orders", { method: "POST", key, json: { petId: pet?.id } });
        }),
      );
      expect(replies.every((reply) => [200, 201, 409].includes(reply.status))).toBe(true);
      await expectAnimalsMatchOrders(pets.map((pet) => pet.id));
    },
  );
});
