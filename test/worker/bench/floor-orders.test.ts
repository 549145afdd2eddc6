import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  floorComplete,
  floorCreate,
  floorPlace,
  floorRead,
} from "../../bench/floor/floor-orders.ts";
import { floorKeySql, OrderWalk, orderAnimalsSql } from "../../bench/order-animals.ts";
import { seedKey } from "../support/keys.ts";
import { recordingD1 } from "../support/recording-d1.ts";
import { api } from "../support/request.ts";

const SEEDED = 10;

beforeAll(async () => {
  // As the bench seeds the floor's database: the animals first (ids 1 to N), then its key.
  await env.DB.prepare(orderAnimalsSql(SEEDED)).run();
  for (const statement of floorKeySql().split(";\n")) await env.DB.prepare(statement).run();
});

describe("the order floor", () => {
  it("sends the very batches the Worker sends for createPet, placeOrder and completeOrder", async () => {
    const { key } = await seedKey();
    const batches: string[][] = [];
    const bindings = { DB: recordingD1(batches) };
    const created = await api("/v1/pets", {
      method: "POST",
      key,
      json: { name: "Measured", categoryId: 1 },
      bindings,
    });
    const pet = (await created.json()) as { id: number };
    expect(created.status).toBe(201);
    const placed = await api("/v1/store/orders", {
      method: "POST",
      key,
      json: { petId: pet.id },
      bindings,
    });
    const order = (await placed.json()) as { id: number };
    expect(placed.status).toBe(201);
    const completed = await api(`/v1/store/orders/${order.id}/complete`, {
      method: "POST",
      key,
      bindings,
    });
    expect(completed.status).toBe(200);
    await completed.json();

    const floorBatches: string[][] = [];
    const floorDB = recordingD1(floorBatches);
    const floorPet = await floorCreate(floorDB, { name: "Floor", categoryId: 1 }, Date.now());
    if (floorPet.kind !== "made") throw new Error(`the floor's create answered ${floorPet.kind}`);
    const floorOrder = await floorPlace(floorDB, floorPet.body.id, Date.now());
    if (floorOrder.kind !== "made")
      throw new Error(`the floor's order answered ${floorOrder.kind}`);
    await floorComplete(floorDB, floorOrder.body.id, Date.now());
    // No endpoint wants these events, so no dispatch follows either reply, as on the bench.
    expect(batches).toHaveLength(3);
    expect(floorBatches).toEqual(batches);
  });

  it("adopts a seeded animal: placed and pending, then completed and sold", async () => {
    const placing = await floorPlace(env.DB, 1, Date.now());
    expect(placing).toMatchObject({ kind: "made", body: { petId: 1, status: "placed" } });
    const pending = await env.DB.prepare("SELECT status FROM pets WHERE id = 1").first("status");
    expect(pending).toBe("pending");

    const again = await floorPlace(env.DB, 1, Date.now());
    expect(again).toMatchObject({ kind: "refused", petStatus: "pending" });

    const orderId = placing.kind === "made" ? placing.body.id : 0;
    const moving = await floorComplete(env.DB, orderId, Date.now());
    expect(moving).toMatchObject({ kind: "moved", order: { id: orderId, status: "completed" } });
    const sold = await env.DB.prepare("SELECT status FROM pets WHERE id = 1").first("status");
    expect(sold).toBe("sold");
    const made = await floorCreate(
      env.DB,
      { name: "Floor", categoryId: 1, status: "available" },
      Date.now(),
    );
    const madeId = made.kind === "made" ? made.body.id : 0;
    const created = await env.DB.prepare(
      "SELECT type, data FROM events WHERE json_extract(data, '$.id') = ? AND type = 'pet.created'",
    )
      .bind(madeId)
      .all<{ type: string; data: string }>();
    expect(created.results.map((row) => JSON.parse(row.data))).toEqual([
      {
        id: madeId,
        name: "Floor",
        categoryId: 1,
        status: "available",
        etag: '"1"',
        photoUrls: [],
      },
    ]);
    // The floor's statements write the Worker's events: each batch its two changes.
    const { results } = await env.DB.prepare(
      `SELECT type FROM events WHERE json_extract(data, '$.id') = CASE WHEN type LIKE 'pet.%' THEN 1 ELSE ? END
       ORDER BY seq`,
    )
      .bind(orderId)
      .all<{ type: string }>();
    expect(results.map((row) => row.type)).toEqual([
      "pet.status_changed",
      "order.placed",
      "pet.status_changed",
      "order.completed",
    ]);
  });

  it("reads the first page of animals as listPets does", async () => {
    const { pets } = await floorRead(env.DB);
    expect(pets.slice(0, SEEDED).map((pet) => pet.id)).toEqual(
      Array.from({ length: SEEDED }, (_, i) => i + 1),
    );
    expect(pets[1]).toEqual({
      id: 2,
      name: "Bench adoptee 2",
      categoryId: 1,
      status: "available",
      etag: '"1"',
      photoUrls: [],
    });
  });
});

describe("the order walk", () => {
  it("hands out the seeded animals once each, in order, and never more than are left", () => {
    const walk = new OrderWalk(10);
    expect(walk.requestBudget(2)).toBe(2 * (10 - 4));
    expect([walk.nextPetId(), walk.nextPetId(), walk.nextPetId()]).toEqual([1, 2, 3]);
    expect(walk.requestBudget(2)).toBe(2 * (7 - 4));
    expect(walk.requestBudget(4)).toBe(0);
    for (let i = 4; i <= 10; i++) expect(walk.nextPetId()).toBe(i);
    expect(() => walk.nextPetId()).toThrow(/ran out/);
  });

  it("is seeded as the walk expects: ids 1 to N, all available", async () => {
    const { results } = await env.DB.prepare(
      "SELECT id FROM pets WHERE id <= ? AND name LIKE 'Bench adoptee %' ORDER BY id",
    )
      .bind(SEEDED)
      .all<{ id: number }>();
    expect(results.map((row) => row.id)).toEqual(Array.from({ length: SEEDED }, (_, i) => i + 1));
  });
});
