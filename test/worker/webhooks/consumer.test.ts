import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { DeliveryMessage } from "../../../src/events/event-records.ts";
import worker from "../../../src/index.ts";
import { createPet } from "../support/assertions.ts";
import { d1FailingStatements, failingD1 } from "../support/faulty-bindings.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { captureLogs } from "../support/logs.ts";
import { api } from "../support/request.ts";
import {
  deliveriesOf,
  feed,
  received,
  receivedAtLeast,
  receiverUrl,
  registerWebhook,
  type Scenario,
  uniqueName,
} from "../support/webhooks.ts";

/*
 * The queue consumer, one message at a time, with the runtime's own batch
 * and result: what it acknowledges, what it hands back for a retry, what it
 * records, and what it does when its own storage fails.
 */

const RETRY_DELAYS = env.WEBHOOK_RETRY_DELAYS.split(",").map(Number);
const LAST_ATTEMPT = RETRY_DELAYS.length + 1;

let key: string;
let eventId: string;

beforeAll(async () => {
  ({ key } = await seedUnlimitedKey());
  const pet = await createPet(key, { name: "Consumed", categoryId: 27 });
  eventId = (await feed(key, "pet.created")).find((event) => event.data.id === pet.id)?.id ?? "";
});

afterEach(async () => {
  await env.DB.prepare("DELETE FROM webhooks").run();
});

/** An endpoint that hears nothing by itself (no kind of event it asked for happens here). */
async function endpoint(scenario: Scenario) {
  const name = uniqueName(scenario);
  const webhook = await registerWebhook(key, receiverUrl(scenario, name), ["order.cancelled"]);
  return { name, id: webhook.id };
}

/** Runs the Worker's queue handler on one message, over the real bindings but those replaced. */
async function consume(message: DeliveryMessage, attempts: number, bindings: Partial<Env> = {}) {
  const batch = createMessageBatch<DeliveryMessage>("petstore-events", [
    { id: "message-1", timestamp: new Date(), attempts, body: message },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...env, ...bindings });
  return getQueueResult(batch, ctx);
}

describe("a message", () => {
  it("delivered: acknowledged and recorded as succeeded", async () => {
    const { name, id } = await endpoint("ok");
    const result = await consume({ eventId, webhookId: id }, 1);
    expect(result.explicitAcks).toEqual(["message-1"]);
    expect(result.retryMessages).toEqual([]);
    expect(await received(name)).toHaveLength(1);
    expect(await deliveriesOf(key, id)).toMatchObject([
      { eventId, attempt: 1, outcome: "succeeded" },
    ]);
  });

  it("refused before the schedule is spent: handed back for a retry, recorded with when it is due", async () => {
    const { id } = await endpoint("fail");
    const result = await consume({ eventId, webhookId: id }, 3);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((retry) => retry.msgId)).toEqual(["message-1"]);
    const [attempt] = await deliveriesOf(key, id);
    expect(attempt).toMatchObject({ attempt: 3, outcome: "retrying", responseStatus: 500 });
    expect(Date.parse(attempt?.nextRetryAt ?? "") - Date.parse(attempt?.attemptedAt ?? "")).toBe(
      (RETRY_DELAYS[2] ?? 0) * 1000,
    );
  });

  it("refused at the last attempt: acknowledged, and the delivery recorded as failed", async () => {
    const { id } = await endpoint("fail");
    const result = await consume({ eventId, webhookId: id }, LAST_ATTEMPT);
    expect(result.explicitAcks).toEqual(["message-1"]);
    expect(result.retryMessages).toEqual([]);
    expect(await deliveriesOf(key, id)).toMatchObject([
      { attempt: LAST_ATTEMPT, outcome: "failed", responseStatus: 500, nextRetryAt: null },
    ]);
  });

  it("for an endpoint deleted or an event expired meanwhile: acknowledged, nothing sent", async () => {
    const { name, id } = await endpoint("ok");
    const deleted = await api(`/v1/webhooks/${id}`, { method: "DELETE", key });
    expect(deleted.status).toBe(204);
    await deleted.arrayBuffer();
    for (const message of [
      { eventId, webhookId: id },
      { eventId: "evt_0000000000000000000000000a", webhookId: (await endpoint("ok")).id },
    ]) {
      const result = await consume(message, 1);
      expect(result.explicitAcks).toEqual(["message-1"]);
    }
    expect(await received(name)).toEqual([]);
  });
});

describe("when this Worker's D1 fails", () => {
  const logs = captureLogs();

  it("before sending: nothing is sent, the message is handed back for a retry, the fault logged", async () => {
    const { name, id } = await endpoint("ok");
    const result = await consume({ eventId, webhookId: id }, 2, { DB: failingD1() });
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((retry) => retry.msgId)).toEqual(["message-1"]);
    expect(await received(name)).toEqual([]);
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        level: "error",
        message: "webhook delivery could not read its event",
      }),
    );
  });

  it("after a delivery succeeded: acknowledged all the same, so it is not sent twice", async () => {
    const { name, id } = await endpoint("ok");
    const result = await consume({ eventId, webhookId: id }, 1, {
      DB: d1FailingStatements(/^insert into "delivery_attempts"/),
    });
    expect(result.explicitAcks).toEqual(["message-1"]);
    expect(result.retryMessages).toEqual([]);
    expect(await receivedAtLeast(name, 1)).toHaveLength(1);
    expect(await deliveriesOf(key, id)).toEqual([]);
    expect(logs.lines).toContainEqual(
      expect.objectContaining({ level: "error", message: "webhook delivery attempt not recorded" }),
    );
  });
});
