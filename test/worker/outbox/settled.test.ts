import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createPet } from "../support/assertions.ts";
import { failingQueue } from "../support/faulty-bindings.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { captureLogs } from "../support/logs.ts";
import { recordingD1 } from "../support/recording-d1.ts";
import { api } from "../support/request.ts";
import { receiverUrl, registerWebhook, uniqueName } from "../support/webhooks.ts";

/*
 * An event that no endpoint wants as it is written has nothing to dispatch:
 * it is settled in the change's own batch, and the change asks for no
 * dispatch after its reply. One that some endpoint wants waits for it.
 */

let listener: { key: string; accountId: number };
let other: { key: string; accountId: number };

beforeAll(async () => {
  const [a, b] = await Promise.all([seedUnlimitedKey(), seedUnlimitedKey()]);
  listener = { key: a.key, accountId: a.row.accountId };
  other = { key: b.key, accountId: b.row.accountId };
});

interface Settlement {
  type: string;
  settled: boolean;
}

/** Creates an animal and reports how its event was left: settled means marked dispatched as it was written. */
async function petCreated(key: string): Promise<Settlement[]> {
  const pet = await createPet(key, { name: "Settled", categoryId: 5 });
  const { results } = await env.DB.prepare(
    `SELECT type, dispatched_at IS NOT NULL AND dispatched_at = created_at AS settled FROM events
     WHERE type = 'pet.created' AND json_extract(data, '$.id') = ?`,
  )
    .bind(pet.id)
    .all<{ type: string; settled: number }>();
  return results.map((row) => ({ type: row.type, settled: row.settled === 1 }));
}

/** The events written for an order, oldest first, and whether each was settled. */
async function orderEvents(orderId: number): Promise<Settlement[]> {
  const { results } = await env.DB.prepare(
    `SELECT type, dispatched_at IS NOT NULL AS settled FROM events
     WHERE type LIKE 'order.%' AND json_extract(data, '$.id') = ? ORDER BY seq`,
  )
    .bind(orderId)
    .all<{ type: string; settled: number }>();
  return results.map((row) => ({ type: row.type, settled: row.settled === 1 }));
}

const CLAIM = /^update "events" set "claim_token" = \?/;

describe("with no endpoint listening", () => {
  it("an animal's event is settled as it is written", async () => {
    expect(await petCreated(other.key)).toEqual([{ type: "pet.created", settled: true }]);
  });

  it("a create sends one batch and asks for no dispatch after its reply", async () => {
    const batches: string[][] = [];
    const res = await api("/v1/pets", {
      method: "POST",
      key: other.key,
      json: { name: "Unheard", categoryId: 6 },
      bindings: { DB: recordingD1(batches) },
    });
    expect(res.status).toBe(201);
    await res.json();
    expect(batches).toHaveLength(1);
    expect(batches.flat().some((statement) => CLAIM.test(statement))).toBe(false);
  });
});

describe("with an endpoint for one account's orders", () => {
  const logs = captureLogs();

  beforeAll(async () => {
    await registerWebhook(listener.key, receiverUrl("ok", uniqueName("orders")), ["order.*"]);
  });

  it("that account's order events wait for dispatch; animals' and other accounts' are settled", async () => {
    expect(await petCreated(listener.key)).toEqual([{ type: "pet.created", settled: true }]);

    const heard = await createPet(listener.key, { name: "Heard", categoryId: 7 });
    const unheard = await createPet(other.key, { name: "Unheard", categoryId: 7 });
    // The queue refuses, so the dispatch after the listener's reply leaves its event waiting.
    const [listenersOrder, othersOrder] = await Promise.all(
      [
        [listener.key, heard.id],
        [other.key, unheard.id],
      ].map(async ([key, petId]) => {
        const res = await api("/v1/store/orders", {
          method: "POST",
          key: String(key),
          json: { petId },
          bindings: { DELIVERIES: failingQueue() },
        });
        expect(res.status).toBe(201);
        return ((await res.json()) as { id: number }).id;
      }),
    );
    expect(await orderEvents(listenersOrder ?? 0)).toEqual([
      { type: "order.placed", settled: false },
    ]);
    expect(await orderEvents(othersOrder ?? 0)).toEqual([{ type: "order.placed", settled: true }]);
    expect(logs.lines).toContainEqual(
      expect.objectContaining({ message: "event dispatch failed; the scheduled sweep retries it" }),
    );
  });

  it("a change of that account asks for a dispatch after its reply; another account's does not", async () => {
    // With bindings of its own, a request is awaited with the work it left after its reply.
    const claimsAfterOrdering = async (key: string) => {
      const pet = await createPet(key, { name: "Asked", categoryId: 1 });
      const batches: string[][] = [];
      const res = await api("/v1/store/orders", {
        method: "POST",
        key,
        json: { petId: pet.id },
        bindings: { DB: recordingD1(batches) },
      });
      expect(res.status).toBe(201);
      await res.json();
      return batches.filter((batch) => batch.some((statement) => CLAIM.test(statement))).length;
    };
    expect(await claimsAfterOrdering(listener.key)).toBeGreaterThan(0);
    expect(await claimsAfterOrdering(other.key)).toBe(0);
  });
});
