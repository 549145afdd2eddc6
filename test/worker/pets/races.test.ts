import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createPet } from "../support/assertions.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { storedOrders } from "../support/orders.ts";
import { MANY_REQUESTS, type Reply, send } from "../support/request.ts";

/*
 * Each change of an animal is one batch conditional on the version it was
 * decided on, and an order's placement one batch conditional on the
 * animal's status: whatever interleaving D1 gives two of them, one wins and
 * the other sees what the winner did.
 */

const ROUNDS = 12;

let owner: string;
let buyer: string;

beforeAll(async () => {
  ({ key: owner } = await seedUnlimitedKey());
  ({ key: buyer } = await seedUnlimitedKey());
});

const outcome = (reply: Reply) => `${reply.status}${reply.body.code ? ` ${reply.body.code}` : ""}`;

/** How often each pair of outcomes was seen, printed for the record. */
function tallyPairs(pairs: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const pair of pairs) counts[pair] = (counts[pair] ?? 0) + 1;
  return counts;
}

describe("races on one animal", () => {
  it(
    "two PATCHes with one If-Match: one 200, one 412, one change and one event",
    MANY_REQUESTS,
    async () => {
      const seen: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const pet = await createPet(owner, { name: `Contested ${round}`, categoryId: 1 });
        const edit = (name: string) =>
          send(`/v1/pets/${pet.id}`, {
            method: "PATCH",
            key: owner,
            json: { name },
            headers: { "If-Match": pet.etag },
          });
        const replies = await Promise.all([edit("Left"), edit("Right")]);
        const statuses = replies.map((reply) => reply.status).sort();
        expect(statuses).toEqual([200, 412]);
        seen.push(replies.map(outcome).join(" | "));
        const winner = replies.find((reply) => reply.status === 200);
        const row = await env.DB.prepare("SELECT name, version FROM pets WHERE id = ?")
          .bind(pet.id)
          .first<{ name: string; version: number }>();
        expect(row).toEqual({ name: winner?.body.name, version: 2 });
        const updates = await env.DB.prepare(
          "SELECT count(*) AS n FROM events WHERE type = 'pet.updated' AND json_extract(data, '$.id') = ?",
        )
          .bind(pet.id)
          .first<{ n: number }>();
        expect(updates?.n).toBe(1);
      }
      console.log("PATCH ∥ PATCH with one If-Match:", tallyPairs(seen));
    },
  );

  it(
    "PATCH status ∥ placing an order: never an available or sold animal with a placed order",
    MANY_REQUESTS,
    async () => {
      const seen: string[] = [];
      const petIds: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const pet = await createPet(owner, { name: `Wanted ${round}`, categoryId: 2 });
        petIds.push(pet.id);
        const to = round % 2 === 0 ? "sold" : "pending";
        const [edit, order] = await Promise.all([
          send(`/v1/pets/${pet.id}`, { method: "PATCH", key: owner, json: { status: to } }),
          send("/v1/store/orders", { method: "POST", key: buyer, json: { petId: pet.id } }),
        ]);
        seen.push(`PATCH ${outcome(edit)} | order ${outcome(order)}`);
        // Exactly one of them moved the animal; the other saw the move. (Setting the status
        // an order already gave it is no change, never order_open.)
        if (order.status === 201) {
          if (to === "pending") expect(edit.status).toBe(200);
          else expect(outcome(edit)).toBe("409 order_open");
        } else {
          expect(edit.status).toBe(200);
          expect(outcome(order)).toBe("409 pet_not_available");
        }
      }
      // An animal with a placed order is pending; one without may have any status a PATCH set.
      const orders = await storedOrders(petIds);
      for (const petId of petIds) {
        const placed = orders.filter(
          (stored) => stored.petId === petId && stored.status === "placed",
        );
        const row = await env.DB.prepare("SELECT status FROM pets WHERE id = ?")
          .bind(petId)
          .first<{ status: string }>();
        expect(placed.length).toBeLessThanOrEqual(1);
        if (placed.length === 1) expect(row?.status, `animal ${petId}`).toBe("pending");
      }
      console.log("PATCH status ∥ placeOrder:", tallyPairs(seen));
    },
  );

  it("DELETE ∥ placing an order: never an order for a deleted animal", MANY_REQUESTS, async () => {
    const seen: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const pet = await createPet(owner, { name: `Doomed ${round}`, categoryId: 3 });
      const [removal, order] = await Promise.all([
        send(`/v1/pets/${pet.id}`, { method: "DELETE", key: owner }),
        send("/v1/store/orders", { method: "POST", key: buyer, json: { petId: pet.id } }),
      ]);
      seen.push(`DELETE ${outcome(removal)} | order ${outcome(order)}`);
      const row = await env.DB.prepare(
        "SELECT status, deleted_at AS deletedAt FROM pets WHERE id = ?",
      )
        .bind(pet.id)
        .first<{ status: string; deletedAt: number | null }>();
      const orders = await storedOrders([pet.id]);
      if (removal.status === 204) {
        expect(outcome(order)).toBe("404 not_found");
        expect(orders).toEqual([]);
        expect(row?.deletedAt).not.toBeNull();
      } else {
        expect(outcome(removal)).toBe("409 order_open");
        expect(order.status).toBe(201);
        expect(orders.map((stored) => stored.status)).toEqual(["placed"]);
        expect(row).toEqual({ status: "pending", deletedAt: null });
      }
    }
    console.log("DELETE ∥ placeOrder:", tallyPairs(seen));
  });
});
