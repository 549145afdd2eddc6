import { createScheduledController, env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import worker from "../../../src/index.ts";
import type { DeliveryMessage } from "../../../src/outbox/outbox.queries.ts";
import { claimEvents } from "../../../src/outbox/outbox.queries.ts";
import { dispatchEvents } from "../../../src/outbox/outbox-relay.ts";
import { createCategory, createPet } from "../support/assertions.ts";
import { d1FailingStatements, failingQueue, recordingQueue } from "../support/faulty-bindings.ts";
import { seedUnlimitedKey, testServices } from "../support/keys.ts";
import { captureLogs, storageFailure } from "../support/logs.ts";
import { api, jsonOf } from "../support/request.ts";
import {
  received,
  receivedAtLeast,
  receiverUrl,
  registerWebhook,
  storedEvents,
  uniqueName,
} from "../support/webhooks.ts";

/*
 * The outbox's way to the queue: after each change, in the background; when
 * that fails (the queue or D1 is down, a dispatcher dies holding events),
 * the scheduled sweep sends what is left. At least once, and in the normal
 * case exactly once: two dispatchers never hold the same event.
 */

const LEASE_MS = 60_000;

let key: string;

beforeAll(async () => {
  ({ key } = await seedUnlimitedKey());
});

// Pet events go to every endpoint, so each test counts only with the endpoints it registers.
afterEach(async () => {
  await env.DB.prepare("DELETE FROM webhooks").run();
});

/** How many events wait in the outbox, unsent. */
async function waiting(): Promise<number> {
  const row = await env.DB.prepare(
    "SELECT count(*) AS n FROM events WHERE dispatched_at IS NULL",
  ).first<{ n: number }>();
  return row?.n ?? -1;
}

/** Adds an animal with the queue down, so its event stays in the outbox; the reply is still 201. */
async function createWhileQueueDown(name: string): Promise<number> {
  const res = await api("/v1/pets", {
    method: "POST",
    key,
    json: { name, categoryId: 2 },
    bindings: { DELIVERIES: failingQueue() },
  });
  expect(res.status).toBe(201);
  return (await jsonOf<{ id: number }>(res)).id;
}

describe("when the queue is down", () => {
  const logs = captureLogs();

  it("the change still succeeds, its event waits, and the scheduled sweep sends it", async () => {
    const name = uniqueName("queue-down");
    await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    const petId = await createWhileQueueDown("Patient");
    expect(await waiting()).toBe(1);
    expect(await received(name)).toEqual([]);
    expect(logs.lines).toContainEqual(storageFailure("Queue"));
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        level: "warn",
        message: "event dispatch failed; the scheduled sweep retries it",
      }),
    );

    await worker.scheduled(createScheduledController(), env);
    const [delivery] = await receivedAtLeast(name, 1);
    expect(JSON.parse(delivery?.body ?? "{}")).toMatchObject({
      type: "pet.created",
      data: { id: petId },
    });
    expect(await waiting()).toBe(0);
    expect(logs.lines).toContainEqual(
      expect.objectContaining({ message: "scheduled tasks ran", deliveriesQueued: 1 }),
    );
  });

  it("the next change's dispatch sends the waiting events too, oldest first", async () => {
    const name = uniqueName("catch-up");
    await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    const first = await createWhileQueueDown("First");
    const second = await createWhileQueueDown("Second");
    expect(await waiting()).toBe(2);
    const third = await createPet(key, { name: "Third", categoryId: 2 });
    const ids = (await receivedAtLeast(name, 3)).map(
      (request) => (JSON.parse(request.body) as { data: { id: number } }).data.id,
    );
    expect(ids.sort((a, b) => a - b)).toEqual([first, second, third.id]);
    expect(await waiting()).toBe(0);
  });
  it("a change whose own event nobody wants still sends what waits", async () => {
    const name = uniqueName("unwanted-next");
    await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    const first = await createWhileQueueDown("Left waiting");
    expect(await waiting()).toBe(1);
    await createCategory(key, uniqueName("Unheard kind"));
    const ids = (await receivedAtLeast(name, 1)).map(
      (request) => (JSON.parse(request.body) as { data: { id: number } }).data.id,
    );
    expect(ids).toEqual([first]);
    expect(await waiting()).toBe(0);
  });
});

describe("when D1 fails after the change", () => {
  const logs = captureLogs();

  it("the event waits for the sweep, which sends it once D1 answers", async () => {
    const name = uniqueName("d1-down");
    await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    // Only the dispatch's claim meets the fault, not the create's batch.
    const res = await api("/v1/pets", {
      method: "POST",
      key,
      json: { name: "Written", categoryId: 3 },
      bindings: { DB: d1FailingStatements(/^update "events" set "claim_token" = \?/) },
    });
    expect(res.status).toBe(201);
    await res.json();
    expect(await waiting()).toBe(1);
    expect(logs.lines).toContainEqual(storageFailure("D1"));
    await worker.scheduled(createScheduledController(), env);
    await receivedAtLeast(name, 1);
    expect(await waiting()).toBe(0);
  });
});

describe("claims", () => {
  const logs = captureLogs();

  it("concurrent dispatchers send each event to each endpoint exactly once", async () => {
    const names = [uniqueName("claims-a"), uniqueName("claims-b")];
    for (const name of names) await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    for (let i = 0; i < 30; i++) await createWhileQueueDown(`Backlog ${i}`);
    expect(await waiting()).toBe(30);

    const services = testServices();
    const sent = await Promise.all(
      Array.from({ length: 6 }, () => dispatchEvents(services, Date.now(), 100)),
    );
    expect(sent.reduce((sum, count) => sum + count, 0)).toBe(60);
    expect(await waiting()).toBe(0);
    for (const name of names) {
      const requests = await receivedAtLeast(name, 30);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const ids = (await received(name)).map((request) => request.headers["webhook-id"]);
      expect(ids).toHaveLength(30);
      expect(new Set(ids).size).toBe(30);
      expect(requests.length).toBe(30);
    }
    expect(logs.lines.filter((line) => line.level === "error" && line.store !== "Queue")).toEqual(
      [],
    );
  }, 30_000);

  it("a backlog leaves as one message per endpoint and 100 events, each in commit order", async () => {
    const names = [uniqueName("backlog-a"), uniqueName("backlog-b")];
    const endpoints: number[] = [];
    for (const name of names) {
      endpoints.push((await registerWebhook(key, receiverUrl("ok", name), ["pet.created"])).id);
    }
    // 120 events as the outbox holds them after the queue was down: written, unsent.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120)
       INSERT INTO events (id, type, data, created_at)
       SELECT printf('evt_backlog%015d', i), 'pet.created', '{"id":' || i || '}', ? FROM n`,
    )
      .bind(Date.now())
      .run();
    const backlog = (await storedEvents())
      .map((event) => event.id)
      .filter((id) => id.startsWith("evt_backlog"));
    expect(backlog).toHaveLength(120);

    const sent: DeliveryMessage[] = [];
    const services = { ...testServices(), deliveries: recordingQueue(sent) };
    expect(await dispatchEvents(services, Date.now(), 10)).toBe(240);
    expect(sent.map((message) => [message.webhookId, message.eventIds.length])).toEqual([
      [endpoints[0], 100],
      [endpoints[1], 100],
      [endpoints[0], 20],
      [endpoints[1], 20],
    ]);
    for (const id of endpoints) {
      const carried = sent.filter((message) => message.webhookId === id);
      expect(carried.flatMap((message) => message.eventIds)).toEqual(backlog);
    }
    for (const name of names) await receivedAtLeast(name, 120, 20_000);
    expect(await waiting()).toBe(0);
  }, 30_000);

  it("a dispatcher that dies holding events delays them only until its claim expires", async () => {
    const name = uniqueName("crashed");
    await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    await createWhileQueueDown("Held");
    const services = testServices();
    const now = Date.now();
    // Claimed, and then nothing: the dispatcher died before sending.
    const claim = await claimEvents(services.db, {
      token: "dead-dispatcher",
      now,
      leaseMs: LEASE_MS,
      limit: 10,
    });
    expect(claim.events).toBe(1);
    expect(claim.deliveries).toHaveLength(1);

    expect(await dispatchEvents(services, now + LEASE_MS - 1, 10)).toBe(0);
    expect(await waiting()).toBe(1);
    expect(await dispatchEvents(services, now + LEASE_MS, 10)).toBe(1);
    await receivedAtLeast(name, 1);
    expect(await waiting()).toBe(0);
  });

  it("events no endpoint wants are marked sent in the claim itself, without the queue", async () => {
    const name = uniqueName("uninterested");
    await registerWebhook(key, receiverUrl("ok", name), ["order.completed"]);
    await createWhileQueueDown("Ignored");
    expect(await waiting()).toBe(0);
    expect(logs.lines).not.toContainEqual(storageFailure("Queue"));
    expect(await received(name)).toEqual([]);
  });
});

describe("the operator's dispatch endpoint", () => {
  const logs = captureLogs();

  it("runs the sweep on demand (cron does not fire under wrangler dev)", async () => {
    const name = uniqueName("operator");
    await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    await createWhileQueueDown("On demand");
    const res = await api("/admin/events/dispatch", {
      method: "POST",
      headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deliveriesQueued: 1 });
    await receivedAtLeast(name, 1);
    const refused = await api("/admin/events/dispatch", { method: "POST" });
    expect(refused.status).toBe(401);
    await refused.arrayBuffer();
    expect(logs.lines).toContainEqual(storageFailure("Queue"));
  });
});
