import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createPet, expectError } from "../support/assertions.ts";
import { d1FailingBatchAt } from "../support/faulty-bindings.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { captureLogs, storageFailure } from "../support/logs.ts";
import { move, type OrderBody, place, placeOrder } from "../support/orders.ts";
import { api, postJson } from "../support/request.ts";

/*
 * The outbox: every change to an animal or an order writes its event in the
 * same transaction, exactly once, built from what the change wrote; a change
 * that is refused, replayed or broken off writes none.
 */

let key: string;
let accountId: number;

beforeAll(async () => {
  const seeded = await seedUnlimitedKey();
  key = seeded.key;
  accountId = seeded.row.accountId;
});

interface StoredEvent {
  id: string;
  type: string;
  data: unknown;
  previousStatus: string | null;
  accountId: number | null;
}

/** The events written since `seq`, as stored, oldest first. */
async function eventsAfter(seq: number): Promise<StoredEvent[]> {
  const { results } = await env.DB.prepare(
    `SELECT id, type, data, previous_status AS previousStatus, account_id AS accountId
     FROM events WHERE seq > ? ORDER BY seq`,
  )
    .bind(seq)
    .all<StoredEvent & { data: string }>();
  return results.map((row) => ({ ...row, data: JSON.parse(row.data as string) }));
}

async function lastSeq(): Promise<number> {
  const row = await env.DB.prepare("SELECT max(seq) AS seq FROM events").first<{
    seq: number | null;
  }>();
  return row?.seq ?? 0;
}

/** Runs `change` and returns the events it wrote. */
async function eventsOf(change: () => Promise<unknown>): Promise<StoredEvent[]> {
  const before = await lastSeq();
  await change();
  return eventsAfter(before);
}

describe("every change writes its event, once", () => {
  it("createPet: one pet.created whose data is the animal as returned", async () => {
    let pet: Awaited<ReturnType<typeof createPet>> | undefined;
    const written = await eventsOf(async () => {
      pet = await createPet(key, { name: "Outbox", categoryId: 3, status: "sold" });
    });
    expect(written).toEqual([
      {
        id: expect.stringMatching(/^evt_[0-9a-hjkmnp-tv-z]{26}$/),
        type: "pet.created",
        data: pet,
        previousStatus: null,
        accountId: null,
      },
    ]);
  });

  it("placeOrder: pet.status_changed (available → pending), then order.placed for the account", async () => {
    const pet = await createPet(key, { name: "Placed", categoryId: 3 });
    let order: OrderBody | undefined;
    const written = await eventsOf(async () => {
      order = await placeOrder(key, pet.id);
    });
    expect(written).toEqual([
      {
        id: expect.any(String),
        type: "pet.status_changed",
        data: { ...pet, status: "pending", etag: '"2"' },
        previousStatus: "available",
        accountId: null,
      },
      {
        id: expect.any(String),
        type: "order.placed",
        data: order,
        previousStatus: null,
        accountId,
      },
    ]);
  });

  it.each([
    ["complete", "order.completed", "sold"],
    ["cancel", "order.cancelled", "available"],
  ] as const)(
    "%sOrder: pet.status_changed (pending → …), then %s",
    async (action, type, petStatus) => {
      const pet = await createPet(key, { name: `Moved ${action}`, categoryId: 3 });
      const order = await placeOrder(key, pet.id);
      let moved: OrderBody | undefined;
      const written = await eventsOf(async () => {
        const res = await move(key, order.id, action);
        moved = (await res.json()) as OrderBody;
        expect(res.status).toBe(200);
      });
      expect(written).toEqual([
        {
          id: expect.any(String),
          type: "pet.status_changed",
          data: { ...pet, status: petStatus, etag: '"3"' },
          previousStatus: "pending",
          accountId: null,
        },
        { id: expect.any(String), type, data: moved, previousStatus: null, accountId },
      ]);
    },
  );

  it("gives every event its own id", async () => {
    const pet = await createPet(key, { name: "Ids", categoryId: 3 });
    const order = await placeOrder(key, pet.id);
    await (await move(key, order.id, "cancel")).json();
    const { results } = await env.DB.prepare("SELECT id FROM events").all<{ id: string }>();
    const ids = results.map((event) => event.id);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("every change of the catalogue writes its events, once", () => {
  /** The events written since `seq`, with what each says changed. */
  async function writtenWithChanges(change: () => Promise<unknown>) {
    const before = await lastSeq();
    await change();
    const { results } = await env.DB.prepare(
      "SELECT type, data, previous_status AS previousStatus, changes, account_id AS accountId FROM events WHERE seq > ? ORDER BY seq",
    )
      .bind(before)
      .all<{
        type: string;
        data: string;
        previousStatus: string | null;
        changes: string | null;
        accountId: number | null;
      }>();
    return results.map((row) => ({
      ...row,
      data: JSON.parse(row.data) as unknown,
      changes: row.changes === null ? null : (JSON.parse(row.changes) as unknown),
    }));
  }

  it("updatePet: pet.updated with the fields that changed, and pet.status_changed when the status did", async () => {
    const pet = await createPet(key, { name: "Edited", categoryId: 3 });
    let after: unknown;
    const written = await writtenWithChanges(async () => {
      const res = await api(`/v1/pets/${pet.id}`, {
        method: "PATCH",
        key,
        json: { name: "Edited", categoryId: 4, status: "pending" },
      });
      after = await res.json();
    });
    expect(written).toEqual([
      {
        type: "pet.updated",
        data: after,
        previousStatus: null,
        changes: ["categoryId", "status"],
        accountId: null,
      },
      {
        type: "pet.status_changed",
        data: after,
        previousStatus: "available",
        changes: null,
        accountId: null,
      },
    ]);
    // A patch that changes nothing writes nothing.
    const unchanged = await writtenWithChanges(async () => {
      const res = await api(`/v1/pets/${pet.id}`, {
        method: "PATCH",
        key,
        json: { categoryId: 4 },
      });
      await res.json();
    });
    expect(unchanged).toEqual([]);
  });

  it("deletePet: pet.deleted; categories: category.created, .updated and .deleted, for everyone", async () => {
    const pet = await createPet(key, { name: "Deleted", categoryId: 3 });
    const deleted = await writtenWithChanges(async () => {
      expect((await api(`/v1/pets/${pet.id}`, { method: "DELETE", key })).status).toBe(204);
    });
    expect(deleted).toEqual([
      {
        type: "pet.deleted",
        data: pet,
        previousStatus: null,
        changes: null,
        accountId: null,
      },
    ]);
    const kinds: string[] = [];
    const made = await writtenWithChanges(async () => {
      const res = await postJson("/v1/categories", key, { name: "Outboxed" });
      const { id } = (await res.json()) as { id: number };
      await (
        await api(`/v1/categories/${id}`, { method: "PATCH", key, json: { name: "Renamed" } })
      ).json();
      expect((await api(`/v1/categories/${id}`, { method: "DELETE", key })).status).toBe(204);
    });
    for (const event of made) kinds.push(event.type);
    expect(kinds).toEqual(["category.created", "category.updated", "category.deleted"]);
    expect(made.every((event) => event.accountId === null && event.changes === null)).toBe(true);
  });

  it("writes none for a refused change: 403, 404, 409, 412, 422", async () => {
    const { key: other } = await seedUnlimitedKey();
    const pet = await createPet(key, { name: "Refused", categoryId: 3 });
    await placeOrder(key, pet.id);
    const written = await writtenWithChanges(async () => {
      const patch = (json: unknown, init = {}) =>
        api(`/v1/pets/${pet.id}`, { method: "PATCH", key, json, ...init });
      await expectError(await patch({ name: "X" }, { key: other }), 403, "not_owner");
      await expectError(await patch({ status: "sold" }), 409, "order_open");
      await expectError(
        await patch({ name: "X" }, { headers: { "If-Match": '"1"' } }),
        412,
        "precondition_failed",
      );
      await expectError(await patch({ categoryId: 999_999 }), 422, "unknown_category", {
        paths: ["categoryId"],
      });
      await expectError(
        await api(`/v1/pets/${pet.id}`, { method: "DELETE", key }),
        409,
        "order_open",
      );
      await expectError(
        await api("/v1/pets/9007199254740991", { method: "DELETE", key }),
        404,
        "not_found",
      );
      await expectError(
        await postJson("/v1/categories", key, { name: "Dogs" }),
        409,
        "category_exists",
      );
      await expectError(await api("/v1/categories/3", { method: "DELETE", key }), 403, "not_owner");
    });
    expect(written).toEqual([]);
  });
});

describe("no event without its change", () => {
  it("writes none for refused requests: bad input, 404, 409", async () => {
    const pet = await createPet(key, { name: "Refusals", categoryId: 4 });
    const order = await placeOrder(key, pet.id);
    await (await move(key, order.id, "complete")).json();
    const written = await eventsOf(async () => {
      await expectError(
        await postJson("/v1/pets", key, { name: "", categoryId: 1 }),
        400,
        "invalid_request",
        { paths: ["name"] },
      );
      await expectError(await place(key, pet.id), 409, "pet_not_available");
      await expectError(
        await place(key, pet.id, { headers: { "Idempotency-Key": "outbox-refused" } }),
        409,
        "pet_not_available",
      );
      await expectError(await place(key, 9_007_199_254_740_991), 404, "not_found");
      await expectError(await move(key, order.id, "cancel"), 409, "invalid_transition");
      await expectError(await move(key, order.id, "complete"), 409, "invalid_transition");
      await expectError(await move(key, 9_007_199_254_740_991, "complete"), 404, "not_found");
    });
    expect(written).toEqual([]);
  });

  it("writes none for an idempotent replay of a create or an order", async () => {
    const create = () =>
      api("/v1/pets", {
        method: "POST",
        key,
        json: { name: "Replayed", categoryId: 5 },
        headers: { "Idempotency-Key": "outbox-create" },
      });
    const first = await eventsOf(async () => (await create()).json());
    expect(first.map((event) => event.type)).toEqual(["pet.created"]);
    const replays = await eventsOf(async () => {
      const again = await create();
      expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      await again.json();
    });
    expect(replays).toEqual([]);

    const pet = await createPet(key, { name: "Ordered once", categoryId: 5 });
    const order = () => place(key, pet.id, { headers: { "Idempotency-Key": "outbox-place" } });
    const placed = await eventsOf(async () => (await order()).json());
    expect(placed.map((event) => event.type)).toEqual(["pet.status_changed", "order.placed"]);
    const replayed = await eventsOf(async () => {
      const again = await order();
      expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      await again.json();
    });
    expect(replayed).toEqual([]);
  });
});

describe("a storage fault in the middle of a change", () => {
  const logs = captureLogs();
  const broken = (index: number) => ({ key, bindings: { DB: d1FailingBatchAt(index) } });

  it("writes no event when any statement of a keyed create, a placement or a move fails", async () => {
    const pet = await createPet(key, { name: "Fault", categoryId: 6 });
    const placed = await placeOrder(
      key,
      (await createPet(key, { name: "Fault moved", categoryId: 6 })).id,
    );
    const cases: [string, number, (index: number) => Promise<Response>][] = [
      [
        "keyed create",
        7,
        (index) =>
          api("/v1/pets", {
            ...broken(index),
            method: "POST",
            json: { name: "Never", categoryId: 6 },
            headers: { "Idempotency-Key": `fault-${index}` },
          }),
      ],
      [
        "placement",
        5,
        (index) =>
          api("/v1/store/orders", { ...broken(index), method: "POST", json: { petId: pet.id } }),
      ],
      [
        "keyed placement",
        10,
        (index) =>
          api("/v1/store/orders", {
            ...broken(index),
            method: "POST",
            json: { petId: pet.id },
            headers: { "Idempotency-Key": `fault-place-${index}` },
          }),
      ],
      [
        "completion",
        5,
        (index) =>
          api(`/v1/store/orders/${placed.id}/complete`, { ...broken(index), method: "POST" }),
      ],
      [
        "cancellation",
        5,
        (index) =>
          api(`/v1/store/orders/${placed.id}/cancel`, { ...broken(index), method: "POST" }),
      ],
    ];
    for (const [what, statements, send] of cases) {
      for (let index = 0; index < statements; index++) {
        const written = await eventsOf(async () => {
          const res = await send(index);
          expect(res.status, `${what} at statement ${index}`).toBe(503);
          await res.arrayBuffer();
        });
        expect(written, `${what} at statement ${index}`).toEqual([]);
      }
    }
    expect(logs.lines).toContainEqual(storageFailure("D1"));
    // 32 requests, one per statement of each batch.
  }, 60_000);
});
