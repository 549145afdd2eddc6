import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createPet, expectError } from "../support/assertions.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { setClock } from "../support/limiters.ts";
import { move, type OrderBody, placeOrder } from "../support/orders.ts";
import { api, MANY_REQUESTS, send } from "../support/request.ts";
import { runScheduled } from "../support/scheduled.ts";
import { type EventBody, feed, storedEvents } from "../support/webhooks.ts";

let alice: string;
let aliceToo: string;
let bob: string;

beforeAll(async () => {
  const first = await seedUnlimitedKey();
  alice = first.key;
  aliceToo = (await seedUnlimitedKey({ account: first.row.account.email })).key;
  bob = (await seedUnlimitedKey()).key;
});

afterEach(() => {
  vi.useRealTimers();
});

const EVENT_KEYS = ["createdAt", "data", "id", "type"];

/** An Event as the contract promises it: these keys exactly, `previousStatus` and `changes` only on their kinds. */
function expectEventShape(event: EventBody): void {
  const extra: Record<string, string> = {
    "pet.status_changed": "previousStatus",
    "pet.updated": "changes",
  };
  const added = extra[event.type];
  const keys = added ? [...EVENT_KEYS, added].sort() : EVENT_KEYS;
  expect(Object.keys(event).sort()).toEqual(keys);
  expect(event.id).toMatch(/^evt_[0-9a-hjkmnp-tv-z]{26}$/);
  expect(new Date(event.createdAt).toISOString()).toBe(event.createdAt);
}

const idsOf = (events: EventBody[]) => events.map((event) => event.id);

describe("who sees what", () => {
  it("pet events go to every account, order events only to the ordering account's keys", async () => {
    const pet = await createPet(bob, { name: "Shared", categoryId: 7 });
    const order = await placeOrder(alice, pet.id);
    const all = await storedEvents();
    const types = (events: EventBody[]) => events.map((event) => `${event.type} ${event.data.id}`);

    const alices = await feed(alice);
    expect(await feed(aliceToo)).toEqual(alices);
    expect(types(alices).slice(-3)).toEqual([
      `pet.created ${pet.id}`,
      `pet.status_changed ${pet.id}`,
      `order.placed ${order.id}`,
    ]);
    const bobs = await feed(bob);
    expect(types(bobs).slice(-2)).toEqual([
      `pet.created ${pet.id}`,
      `pet.status_changed ${pet.id}`,
    ]);
    expect(bobs.some((event) => event.type.startsWith("order."))).toBe(false);
    // Between them, the two accounts see every event stored.
    expect(new Set([...idsOf(alices), ...idsOf(bobs)])).toEqual(
      new Set(all.map((event) => event.id)),
    );
    for (const event of alices) expectEventShape(event);
  });

  it("lists the events as stored, in the order of the sequence", async () => {
    const pet = await createPet(alice, { name: "Ordered", categoryId: 7 });
    const order = await placeOrder(alice, pet.id);
    await (await move(alice, order.id, "complete")).json();
    const stored = await storedEvents();
    const listed = await feed(alice);
    expect(idsOf(listed)).toEqual(stored.map((event) => event.id));
    expect(listed.map((event) => event.data)).toEqual(
      stored.map((event) => JSON.parse(event.data)),
    );
  });
});

describe("paging and the type filter", () => {
  it("pages with limit and the Link header's cursor, in the same order as one long page", async () => {
    for (let i = 0; i < 5; i++) await createPet(bob, { name: `Page ${i}`, categoryId: 1 });
    const whole = await feed(bob);
    const first = await api("/v1/events?limit=2&type=pet.created", { key: bob });
    expect(first.headers.get("Link")).toMatch(
      /^<https:\/\/petstore\.test\/v1\/events\?limit=2&type=pet.created&cursor=[A-Za-z0-9_-]+>; rel="next"$/,
    );
    await first.json();
    const paged: EventBody[] = [];
    let path: string | undefined = "/v1/events?limit=2";
    let pages = 0;
    while (path) {
      const reply = await api(path, { key: bob });
      const page = (await reply.json()) as EventBody[];
      expect(page.length).toBeLessThanOrEqual(2);
      paged.push(...page);
      pages += 1;
      const link = reply.headers.get("Link");
      const next = link ? /<([^>]+)>; rel="next"/.exec(link)?.[1] : undefined;
      path = next ? new URL(next).pathname + new URL(next).search : undefined;
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(paged).toEqual(whole);
  });

  it("narrows to one kind or to a family", async () => {
    const pet = await createPet(alice, { name: "Filtered", categoryId: 2 });
    const order = await placeOrder(alice, pet.id);
    await (await move(alice, order.id, "cancel")).json();
    const change = (path: string, init: RequestInit & { json?: unknown }) =>
      send(path, { key: alice, ...init });
    expect(
      (
        await change(`/v1/pets/${pet.id}`, {
          method: "PATCH",
          json: { name: "Refiled", status: "sold" },
        })
      ).status,
    ).toBe(200);
    const category = await change("/v1/categories", { method: "POST", json: { name: "Filtered" } });
    const categoryPath = `/v1/categories/${category.body.id}`;
    expect(
      (await change(categoryPath, { method: "PATCH", json: { name: "Refiled" } })).status,
    ).toBe(200);
    expect((await change(categoryPath, { method: "DELETE" })).status).toBe(204);
    expect((await change(`/v1/pets/${pet.id}`, { method: "DELETE" })).status).toBe(204);
    const everything = await feed(alice);
    for (const event of everything) expectEventShape(event);
    for (const type of [
      "pet.created",
      "pet.updated",
      "pet.status_changed",
      "pet.deleted",
      "category.created",
      "category.updated",
      "category.deleted",
      "order.placed",
      "order.completed",
      "order.cancelled",
    ]) {
      expect(await feed(alice, type), type).toEqual(
        everything.filter((event) => event.type === type),
      );
    }
    expect(await feed(alice, "pet.*")).toEqual(
      everything.filter((event) => event.type.startsWith("pet.")),
    );
    expect(await feed(alice, "order.*")).toEqual(
      everything.filter((event) => event.type.startsWith("order.")),
    );
    const categories = await feed(alice, "category.*");
    expect(categories.map((event) => event.type).slice(-3)).toEqual([
      "category.created",
      "category.updated",
      "category.deleted",
    ]);
    // Catalogue events are everyone's.
    expect((await feed(bob, "category.*")).slice(-3)).toEqual(categories.slice(-3));
    expect((await feed(alice, "order.cancelled")).at(-1)?.data).toMatchObject({
      id: order.id,
      status: "cancelled",
    });
  });

  it("answers 400 for an unknown type, a bad limit or a cursor it did not issue, 401 without a key", async () => {
    for (const query of [
      "type=pet",
      "type=*",
      "type=order.shipped",
      "type=PET.*",
      "limit=0",
      "limit=101",
      "cursor=nope",
      "cursor=cDE6MA",
    ]) {
      await expectError(await api(`/v1/events?${query}`, { key: alice }), 400, "invalid_request", {
        paths: [query.split("=")[0] ?? ""],
      });
    }
    await expectError(await api("/v1/events"), 401, "unauthorized");
  });
});

describe("the feed's order is the order of the commits", () => {
  it(
    "concurrent orders and moves by two accounts: every move follows its animal's change, one transaction apart from none",
    MANY_REQUESTS,
    async () => {
      const pets = await Promise.all(
        Array.from({ length: 16 }, (_, i) => createPet(bob, { name: `Rush ${i}`, categoryId: 3 })),
      );
      const keys = [alice, aliceToo, bob];
      const placed = await Promise.all(
        pets.map((pet, i) =>
          send("/v1/store/orders", {
            method: "POST",
            key: keys[i % keys.length],
            json: { petId: pet.id },
          }),
        ),
      );
      const orders = placed.map((reply) => reply.body as unknown as OrderBody);
      expect(placed.map((reply) => reply.status)).toEqual(placed.map(() => 201));
      await Promise.all(
        orders.flatMap((order, i) => [
          send(`/v1/store/orders/${order.id}/complete`, {
            method: "POST",
            key: keys[i % keys.length],
          }),
          send(`/v1/store/orders/${order.id}/cancel`, {
            method: "POST",
            key: keys[i % keys.length],
          }),
        ]),
      );

      for (const [key, own] of [
        [alice, orders.filter((_, i) => i % 3 !== 2)],
        [bob, orders.filter((_, i) => i % 3 === 2)],
      ] as const) {
        const events = (await feed(key)).filter((event) =>
          pets.some((pet) =>
            event.type.startsWith("pet.") ? event.data.id === pet.id : event.data.petId === pet.id,
          ),
        );
        // Each order event comes right after the animal's change its transaction made.
        const orderEvents = events.filter((event) => event.type.startsWith("order."));
        expect(orderEvents).toHaveLength(own.length * 2);
        for (const event of orderEvents) {
          const before = events[events.indexOf(event) - 1];
          expect(before?.type).toBe("pet.status_changed");
          expect(before?.data.id).toBe(event.data.petId);
        }
        // Placements in the order the database numbered them; every move after its placement.
        const placements = orderEvents.filter((event) => event.type === "order.placed");
        const placedIds = placements.map((event) => event.data.id as number);
        expect(placedIds).toEqual([...placedIds].sort((a, b) => a - b));
        for (const order of own) {
          const mine = orderEvents
            .filter((event) => event.data.id === order.id)
            .map((event) => event.type);
          expect(mine[0]).toBe("order.placed");
          expect(["order.completed", "order.cancelled"]).toContain(mine[1]);
        }
        // And the time of each event never runs backwards along the feed.
        const times = events.map((event) => Date.parse(event.createdAt));
        expect(times).toEqual([...times].sort((a, b) => a - b));
      }
    },
  );
});

describe("retention", () => {
  it("lists only the last 30 days, and the scheduled job removes what is older", async () => {
    const pet = await createPet(alice, { name: "Old news", categoryId: 4 });
    const [created] = (await feed(alice, "pet.created")).filter(
      (event) => event.data.id === pet.id,
    );
    expect(created).toBeDefined();
    const stored = async () =>
      (
        await env.DB.prepare("SELECT count(*) AS n FROM events WHERE id = ?")
          .bind(created?.id)
          .first<{ n: number }>()
      )?.n;

    setClock(new Date(Date.parse(created?.createdAt ?? "") + 29 * 86_400_000).toISOString());
    expect(idsOf(await feed(alice))).toContain(created?.id);
    await runScheduled();
    expect(await stored()).toBe(1);

    setClock(new Date(Date.parse(created?.createdAt ?? "") + 30 * 86_400_000 + 1).toISOString());
    expect(idsOf(await feed(alice))).not.toContain(created?.id);
    expect(await stored()).toBe(1);
    await runScheduled();
    expect(await stored()).toBe(0);
  });
});
