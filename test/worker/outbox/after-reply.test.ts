import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createCategory } from "../../../src/categories/categories.queries.ts";
import type { AppEnv } from "../../../src/context.ts";
import { type DashboardEnv, dashboardReads } from "../../../src/dashboard/session.ts";
import type { Database } from "../../../src/db/database.ts";
import { responseChain } from "../../../src/middleware/response-chain.ts";
import type { DeliveryMessage } from "../../../src/outbox/outbox.queries.ts";
import { createPet } from "../support/assertions.ts";
import { recordingQueue } from "../support/faulty-bindings.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { captureLogs, requestLine } from "../support/logs.ts";
import { imageOf, type PhotoBody } from "../support/photos.ts";
import { api, ORIGIN } from "../support/request.ts";
import { receiverUrl, registerWebhook, uniqueName } from "../support/webhooks.ts";

/*
 * Dispatch is a trait of a change, not a call its handler makes: whatever
 * wrote the events (an API route, a plain Hono handler of the dashboard),
 * the step after the handler sends them once the reply is sent, once each,
 * and leaves nothing for the scheduled sweep, even when the handler failed
 * after its change.
 */

let key: string;
let apiKeyHash: string;
let endpoint: number;

beforeAll(async () => {
  ({ key, hash: apiKeyHash } = await seedUnlimitedKey());
});

afterEach(async () => {
  await env.DB.prepare("DELETE FROM webhooks").run();
});

async function listen(): Promise<void> {
  const types = ["pet.*", "category.*", "order.*"];
  endpoint = (await registerWebhook(key, receiverUrl("ok", uniqueName("after-reply")), types)).id;
}

/** The newest event's sequence number: the events after it are the next change's. */
async function lastSeq(): Promise<number> {
  const row = await env.DB.prepare("SELECT max(seq) AS seq FROM events").first<{ seq: number }>();
  return row?.seq ?? 0;
}

async function eventsAfter(seq: number): Promise<{ id: string; type: string }[]> {
  const { results } = await env.DB.prepare("SELECT id, type FROM events WHERE seq > ? ORDER BY seq")
    .bind(seq)
    .all<{ id: string; type: string }>();
  return results;
}

/** How many events wait in the outbox, unsent: what the scheduled sweep would send. */
async function waiting(): Promise<number> {
  const row = await env.DB.prepare(
    "SELECT count(*) AS n FROM events WHERE dispatched_at IS NULL",
  ).first<{ n: number }>();
  return row?.n ?? -1;
}

/**
 * Runs `write` (which sends its request through `deliveries`, the request's
 * background work awaited), then checks that the events it wrote, and those
 * alone, went to the queue once each, and that none waits.
 */
async function expectDispatchedOnce(
  write: (deliveries: Queue) => Promise<number>,
  types: string[],
): Promise<void> {
  const before = await lastSeq();
  const sent: DeliveryMessage[] = [];
  const status = await write(recordingQueue(sent) as Queue);
  expect(status).toBeLessThan(500);
  const written = await eventsAfter(before);
  expect(written.map((event) => event.type)).toEqual(types);
  const carried = sent
    .filter((message) => message.webhookId === endpoint)
    .flatMap((message) => message.eventIds);
  expect(carried).toEqual(written.map((event) => event.id));
  expect(await waiting()).toBe(0);
}

/** One API request with the recording queue; its body read, its background work done. */
function apiWrite(path: string, method: string, json?: unknown) {
  return async (deliveries: Queue): Promise<number> => {
    const res = await api(path, { method, key, json, bindings: { DELIVERIES: deliveries } });
    await res.arrayBuffer();
    return res.status;
  };
}

describe("after every API change", () => {
  it("sends the change's events once, after the reply, and leaves none for the sweep", async () => {
    await listen();
    let petId = 0;
    await expectDispatchedOnce(
      async (deliveries) => {
        const res = await api("/v1/pets", {
          method: "POST",
          key,
          json: { name: "Traited", categoryId: 2 },
          bindings: { DELIVERIES: deliveries },
        });
        petId = ((await res.json()) as { id: number }).id;
        return res.status;
      },
      ["pet.created"],
    );
    await expectDispatchedOnce(apiWrite(`/v1/pets/${petId}`, "PATCH", { name: "Renamed" }), [
      "pet.updated",
    ]);
    let photo: PhotoBody | undefined;
    await expectDispatchedOnce(
      async (deliveries) => {
        const res = await api(`/v1/pets/${petId}/photos`, {
          method: "POST",
          key,
          body: imageOf("image/jpeg", 256, petId),
          headers: { "Content-Type": "image/jpeg" },
          bindings: { DELIVERIES: deliveries },
        });
        photo = (await res.json()) as PhotoBody;
        return res.status;
      },
      ["pet.updated"],
    );
    await expectDispatchedOnce(apiWrite(`/v1/pets/${petId}/photos/${photo?.id}`, "DELETE"), [
      "pet.updated",
    ]);
    let orderId = 0;
    await expectDispatchedOnce(
      async (deliveries) => {
        const res = await api("/v1/store/orders", {
          method: "POST",
          key,
          json: { petId },
          bindings: { DELIVERIES: deliveries },
        });
        orderId = ((await res.json()) as { id: number }).id;
        return res.status;
      },
      ["pet.status_changed", "order.placed"],
    );
    await expectDispatchedOnce(apiWrite(`/v1/store/orders/${orderId}/cancel`, "POST"), [
      "pet.status_changed",
      "order.cancelled",
    ]);
    await expectDispatchedOnce(apiWrite(`/v1/pets/${petId}`, "DELETE"), ["pet.deleted"]);
    let categoryId = 0;
    await expectDispatchedOnce(
      async (deliveries) => {
        const res = await api("/v1/categories", {
          method: "POST",
          key,
          json: { name: uniqueName("Traits") },
          bindings: { DELIVERIES: deliveries },
        });
        categoryId = ((await res.json()) as { id: number }).id;
        return res.status;
      },
      ["category.created"],
    );
    await expectDispatchedOnce(
      apiWrite(`/v1/categories/${categoryId}`, "PATCH", { name: uniqueName("Renamed") }),
      ["category.updated"],
    );
    await expectDispatchedOnce(apiWrite(`/v1/categories/${categoryId}`, "DELETE"), [
      "category.deleted",
    ]);
  });

  it("sends a keyed change's events once, and nothing for its replay", async () => {
    await listen();
    const keyed = async (deliveries: Queue) => {
      const res = await api("/v1/pets", {
        method: "POST",
        key,
        json: { name: "Keyed", categoryId: 3 },
        headers: { "Idempotency-Key": uniqueName("keyed-dispatch") },
        bindings: { DELIVERIES: deliveries },
      });
      await res.json();
      return res.status;
    };
    await expectDispatchedOnce(keyed, ["pet.created"]);
    const idempotencyKey = uniqueName("replayed-dispatch");
    const send = async (deliveries: Queue) => {
      const res = await api("/v1/pets", {
        method: "POST",
        key,
        json: { name: "Replayed", categoryId: 3 },
        headers: { "Idempotency-Key": idempotencyKey },
        bindings: { DELIVERIES: deliveries },
      });
      await res.json();
      return res.status;
    };
    await expectDispatchedOnce(send, ["pet.created"]);
    await expectDispatchedOnce(send, []);
  });

  it("dispatches nothing after a read", async () => {
    await listen();
    const pet = await createPet(key, { name: "Read", categoryId: 1 });
    await expectDispatchedOnce(apiWrite(`/v1/pets?id=${pet.id}`, "GET"), []);
  });
});

describe("after a plain Hono handler of the dashboard", () => {
  const logs = captureLogs();

  /**
   * The dashboard's way to D1 and a form handler behind it that runs a
   * change of the catalogue, then answers as a form does, or fails after
   * its change.
   */
  function dashboardApp(): Hono<AppEnv> {
    const app = new Hono<AppEnv>();
    const dashboard = new Hono<DashboardEnv>();
    dashboard.use(dashboardReads());
    const made = (db: Database) =>
      createCategory(db, { name: uniqueName("Form"), apiKeyHash, now: Date.now() });
    dashboard.post("/dashboard/categories", async (c) => {
      await made(c.get("services").db);
      return c.redirect("/dashboard/account", 303);
    });
    dashboard.post("/dashboard/failing", async (c) => {
      await made(c.get("services").db);
      throw new Error("the handler failed after its change");
    });
    app.use(responseChain(app));
    app.route("/", dashboard);
    app.onError((_error, c) => c.text("failed", 500));
    return app;
  }

  async function post(path: string, deliveries: Queue): Promise<number> {
    const ctx = createExecutionContext();
    const request = new Request(`${ORIGIN}${path}`, { method: "POST" });
    const res = await dashboardApp().fetch(request, { ...env, DELIVERIES: deliveries }, ctx);
    await res.text();
    await waitOnExecutionContext(ctx);
    return res.status;
  }

  it("sends a form's change's events once, after its redirect", async () => {
    await listen();
    await expectDispatchedOnce(
      (deliveries) => post("/dashboard/categories", deliveries),
      ["category.created"],
    );
  });

  it("sends what committed when the handler fails after its change", async () => {
    await listen();
    const before = await lastSeq();
    const sent: DeliveryMessage[] = [];
    expect(await post("/dashboard/failing", recordingQueue(sent) as Queue)).toBe(500);
    expect(logs.lines).toEqual([requestLine(500)]);
    const written = await eventsAfter(before);
    expect(written.map((event) => event.type)).toEqual(["category.created"]);
    expect(sent.flatMap((message) => message.eventIds)).toEqual(written.map((event) => event.id));
    expect(await waiting()).toBe(0);
  });
});
