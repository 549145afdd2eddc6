import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createCategory, createPet, expectError } from "../support/assertions.ts";
import { seedKey, seedUnlimitedKey } from "../support/keys.ts";
import {
  expectAnimalsMatchOrders,
  move,
  type OrderBody,
  place,
  storedOrders,
  storedPetStatus,
} from "../support/orders.ts";
import { api } from "../support/request.ts";
import { runScheduled } from "../support/scheduled.ts";

let key: string;

beforeAll(async () => {
  ({ key } = await seedUnlimitedKey());
});

afterEach(() => {
  vi.useRealTimers();
});

const keyed = (idempotencyKey: string) => ({ headers: { "Idempotency-Key": idempotencyKey } });

function createKeyed(idempotencyKey: string, json: unknown, as = key): Promise<Response> {
  return api("/v1/pets", { method: "POST", key: as, json, ...keyed(idempotencyKey) });
}

describe("Idempotency-Key on POST /v1/store/orders", () => {
  it("replays the first response, as it was sent, after the order has moved on", async () => {
    const pet = await createPet(key, { name: "Once", categoryId: 2 });
    const first = await place(key, pet.id, keyed("place-1"));
    const firstText = await first.text();
    expect(first.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const order = JSON.parse(firstText) as OrderBody;

    const completed = (await (await move(key, order.id, "complete")).json()) as OrderBody;
    expect(completed.status).toBe("completed");

    const again = await place(key, pet.id, keyed("place-1"));
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(await again.text()).toBe(firstText);
    expect(await storedOrders([pet.id])).toHaveLength(1);
    expect(await storedPetStatus(pet.id)).toBe("sold");
  });

  it("places exactly one order from 20 concurrent requests with one key; the others replay it", async () => {
    const pet = await createPet(key, { name: "Crowd", categoryId: 3 });
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => place(key, pet.id, keyed("place-race"))),
    );
    const bodies = await Promise.all(replies.map((reply) => reply.json() as Promise<OrderBody>));
    expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(201));
    expect(new Set(bodies.map((body) => body.id)).size).toBe(1);
    const replayed = replies.filter((reply) => reply.headers.get("Idempotent-Replayed") === "true");
    expect(replayed).toHaveLength(19);
    expect(await storedOrders([pet.id])).toHaveLength(1);
    await expectAnimalsMatchOrders([pet.id]);
  });

  it("refuses the same key with another animal with 422, and places nothing", async () => {
    const [a, b] = [
      await createPet(key, { name: "A", categoryId: 4 }),
      await createPet(key, { name: "B", categoryId: 4 }),
    ];
    await (await place(key, a.id, keyed("place-reuse"))).json();
    await expectError(await place(key, b.id, keyed("place-reuse")), 422, "idempotency_key_reused");
    expect(await storedPetStatus(b.id)).toBe("available");
    expect(await storedOrders([b.id])).toEqual([]);
  });

  it("refuses one key used on createPet and then on placeOrder with 422, and the reverse", async () => {
    const { id: categoryId } = await createCategory(key, "Shared operations");
    const created = await createKeyed("shared-op-1", { name: "Made", categoryId });
    const pet = (await created.json()) as { id: number };
    expect(created.status).toBe(201);
    await expectError(
      await place(key, pet.id, keyed("shared-op-1")),
      422,
      "idempotency_key_reused",
    );
    expect(await storedPetStatus(pet.id)).toBe("available");

    await (await place(key, pet.id, keyed("shared-op-2"))).json();
    await expectError(
      await createKeyed("shared-op-2", { name: "Made", categoryId }),
      422,
      "idempotency_key_reused",
    );
    const count = await env.DB.prepare("SELECT count(*) AS n FROM pets WHERE category_id = ?")
      .bind(categoryId)
      .first<{ n: number }>();
    expect(count?.n).toBe(1);
  });

  it("scopes keys to the API key that sent them", async () => {
    const other = await seedKey();
    const [a, b] = [
      await createPet(key, { name: "Mine", categoryId: 6 }),
      await createPet(key, { name: "Yours", categoryId: 6 }),
    ];
    const mine = (await (await place(key, a.id, keyed("scoped"))).json()) as OrderBody;
    const res = await place(other.key, b.id, keyed("scoped"));
    const yours = (await res.json()) as OrderBody;
    expect(res.status).toBe(201);
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
    expect(yours.id).not.toBe(mine.id);
  });

  it("does not remember a refused placement: the same key tries again", async () => {
    const pet = await createPet(key, { name: "Later", categoryId: 7 });
    const blocking = (await (await place(key, pet.id)).json()) as OrderBody;
    await expectError(await place(key, pet.id, keyed("after-409")), 409, "pet_not_available");
    await expectError(
      await place(key, 9_007_199_254_740_991, keyed("after-404")),
      404,
      "not_found",
    );
    await (await move(key, blocking.id, "cancel")).json();
    const retried = await place(key, pet.id, keyed("after-409"));
    expect(retried.status).toBe(201);
    expect(retried.headers.get("Idempotent-Replayed")).toBeNull();
    await retried.json();
    expect(await storedPetStatus(pet.id)).toBe("pending");
  });

  it("forgets a key after 24 hours, and the scheduled job removes its record", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2031-05-01T10:00:00Z"));
    const pet = await createPet(key, { name: "Expiring", categoryId: 1 });
    const first = (await (await place(key, pet.id, keyed("expiring"))).json()) as OrderBody;
    await (await move(key, first.id, "cancel")).json();

    vi.setSystemTime(new Date("2031-05-02T09:59:59Z"));
    const within = await place(key, pet.id, keyed("expiring"));
    expect(((await within.json()) as OrderBody).id).toBe(first.id);
    expect(within.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await storedPetStatus(pet.id)).toBe("available");

    vi.setSystemTime(new Date("2031-05-02T10:00:01Z"));
    await runScheduled();
    const records = await env.DB.prepare(
      "SELECT count(*) AS n FROM idempotency_records WHERE idempotency_key = 'expiring'",
    ).first<{ n: number }>();
    expect(records?.n).toBe(0);
    const after = await place(key, pet.id, keyed("expiring"));
    expect(after.status).toBe(201);
    expect(after.headers.get("Idempotent-Replayed")).toBeNull();
    expect(((await after.json()) as OrderBody).id).not.toBe(first.id);
    await expectAnimalsMatchOrders([pet.id]);
  });
});

describe("Idempotency-Key on POST /v1/pets once animals can be ordered", () => {
  it("replays the first response of a create after its animal was ordered and sold", async () => {
    const created = await createKeyed("create-then-order", { name: "Rex", categoryId: 2 });
    const firstText = await created.text();
    const pet = JSON.parse(firstText) as { id: number; status: string };
    expect(pet.status).toBe("available");

    const order = (await (await place(key, pet.id)).json()) as OrderBody;
    const pending = await createKeyed("create-then-order", { name: "Rex", categoryId: 2 });
    expect(await pending.text()).toBe(firstText);
    expect(pending.headers.get("Idempotent-Replayed")).toBe("true");

    await (await move(key, order.id, "complete")).json();
    const sold = await createKeyed("create-then-order", { categoryId: 2, name: "Rex" });
    expect(sold.status).toBe(201);
    expect(await sold.text()).toBe(firstText);
    expect(sold.headers.get("Location")).toBe(`/v1/pets/${pet.id}`);
    expect(await storedPetStatus(pet.id)).toBe("sold");
  });
});
