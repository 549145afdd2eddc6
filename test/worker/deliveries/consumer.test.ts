import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import worker from "../../../src/index.ts";
import type { DeliveryMessage } from "../../../src/outbox/outbox.queries.ts";
import { createPet } from "../support/assertions.ts";
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
  settledDeliveries,
  uniqueName,
} from "../support/webhooks.ts";

/*
 * The queue consumer, with the runtime's own batch and result: it hands
 * each message to its endpoint's Durable Object and acknowledges it at
 * once, whatever the endpoint does; only a message the object could not
 * take goes back to the queue.
 */

let key: string;
let eventId: string;

beforeAll(async () => {
  ({ key } = await seedUnlimitedKey());
  const pet = await createPet(key, { name: "Consumed", categoryId: 6 });
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

/** Runs the Worker's queue handler on messages, over the real bindings but those replaced. */
async function consume(messages: DeliveryMessage[], bindings: Partial<Env> = {}) {
  const batch = createMessageBatch<DeliveryMessage>(
    "petstore-events",
    messages.map((body, index) => ({
      id: `message-${index + 1}`,
      timestamp: new Date(),
      attempts: 1,
      body,
    })),
  );
  const ctx = createExecutionContext();
  const started = Date.now();
  await worker.queue(batch, { ...env, ...bindings });
  return { result: await getQueueResult(batch, ctx), tookMs: Date.now() - started };
}

describe("a batch", () => {
  it("is acknowledged as soon as each endpoint's object took its message; the objects deliver", async () => {
    const ok = await endpoint("ok");
    const { result } = await consume([{ webhookId: ok.id, eventIds: [eventId] }]);
    expect(result.explicitAcks).toEqual(["message-1"]);
    expect(result.retryMessages).toEqual([]);
    expect(await receivedAtLeast(ok.name, 1)).toHaveLength(1);
    const [delivery] = await settledDeliveries(key, ok.id, 1);
    expect(delivery).toMatchObject({ eventId, status: "succeeded" });
  });

  it("one message carries an endpoint's events: its object records them in the order given", async () => {
    const ok = await endpoint("ok");
    const pets = [];
    for (const name of ["One", "Two", "Three"]) {
      pets.push(await createPet(key, { name, categoryId: 6 }));
    }
    const created = await feed(key, "pet.created");
    const eventIds = pets.map((pet) => created.find((event) => event.data.id === pet.id)?.id ?? "");
    const { result } = await consume([{ webhookId: ok.id, eventIds }]);
    expect(result.explicitAcks).toEqual(["message-1"]);
    const deliveries = await settledDeliveries(key, ok.id, 3);
    // Newest first: the last event given was recorded last.
    expect(deliveries.map((delivery) => delivery.eventId)).toEqual([...eventIds].reverse());
    expect(deliveries.map((delivery) => delivery.status)).toEqual(Array(3).fill("succeeded"));
    expect(await receivedAtLeast(ok.name, 3)).toHaveLength(3);
  });

  it("an endpoint's messages in one batch are one hand-over, its events in the batch's order", async () => {
    const ok = await endpoint("ok");
    const other = await endpoint("ok");
    const pets = [];
    for (const name of ["First", "Second", "Third"]) {
      pets.push(await createPet(key, { name, categoryId: 6 }));
    }
    const created = await feed(key, "pet.created");
    const [one = "", two = "", three = ""] = pets.map(
      (pet) => created.find((event) => event.data.id === pet.id)?.id ?? "",
    );
    const handedOver: { webhookId: string; eventIds: string[] }[] = [];
    // The real objects, each call to them noted on the way.
    const namespace = {
      idFromName: (name: string) => env.WEBHOOK_ENDPOINT.idFromName(name),
      get: (id: DurableObjectId) => ({
        accept: (webhookId: number, eventIds: string[]) => {
          handedOver.push({ webhookId: String(webhookId), eventIds });
          return env.WEBHOOK_ENDPOINT.get(id).accept(webhookId, eventIds);
        },
      }),
    } as unknown as Env["WEBHOOK_ENDPOINT"];
    const { result } = await consume(
      [
        { webhookId: ok.id, eventIds: [one, two] },
        { webhookId: other.id, eventIds: [one] },
        { webhookId: ok.id, eventIds: [three] },
      ],
      { WEBHOOK_ENDPOINT: namespace },
    );
    expect(result.explicitAcks.sort()).toEqual(["message-1", "message-2", "message-3"]);
    expect(handedOver).toEqual([
      { webhookId: String(ok.id), eventIds: [one, two, three] },
      { webhookId: String(other.id), eventIds: [one] },
    ]);
    const deliveries = await settledDeliveries(key, ok.id, 3);
    expect(deliveries.map((delivery) => delivery.eventId)).toEqual([three, two, one]);
    expect(await receivedAtLeast(other.name, 1)).toHaveLength(1);
  });

  it("does not wait for endpoints that hang: acknowledged long before their timeout", async () => {
    const hanging = await Promise.all([endpoint("hang"), endpoint("hang"), endpoint("hang")]);
    const ok = await endpoint("ok");
    const { result, tookMs } = await consume([
      ...hanging.map((hang) => ({ webhookId: hang.id, eventIds: [eventId] })),
      { webhookId: ok.id, eventIds: [eventId] },
    ]);
    expect(result.explicitAcks).toEqual(["message-1", "message-2", "message-3", "message-4"]);
    expect(tookMs).toBeLessThan(Number(env.WEBHOOK_TIMEOUT_MS));
    expect(await receivedAtLeast(ok.name, 1)).toHaveLength(1);
  });

  it("a message handed over twice (the sweep re-sent it) is one delivery, sent once", async () => {
    const ok = await endpoint("ok");
    await consume([{ webhookId: ok.id, eventIds: [eventId] }]);
    await settledDeliveries(key, ok.id, 1);
    await consume([{ webhookId: ok.id, eventIds: [eventId] }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await received(ok.name)).toHaveLength(1);
    expect(await deliveriesOf(key, ok.id)).toHaveLength(1);
  });

  it("for an endpoint deleted or an event expired meanwhile: acknowledged, nothing sent", async () => {
    const gone = await endpoint("ok");
    const deleted = await api(`/v1/webhooks/${gone.id}`, { method: "DELETE", key });
    expect(deleted.status).toBe(204);
    await deleted.arrayBuffer();
    const expired = await endpoint("ok");
    const { result } = await consume([
      { webhookId: gone.id, eventIds: [eventId] },
      { webhookId: expired.id, eventIds: ["evt_0000000000000000000000000a"] },
    ]);
    expect(result.explicitAcks).toEqual(["message-1", "message-2"]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await received(gone.name)).toEqual([]);
    expect(await received(expired.name)).toEqual([]);
    expect(await deliveriesOf(key, expired.id)).toEqual([]);
  });
});

describe("when the endpoint's object cannot be reached", () => {
  const logs = captureLogs();

  it("every message of that endpoint goes back to the queue; the others' are acknowledged", async () => {
    const [down, up] = [await endpoint("ok"), await endpoint("ok")];
    const namespace = {
      idFromName: (name: string) => env.WEBHOOK_ENDPOINT.idFromName(name),
      get: (id: DurableObjectId) =>
        id.equals(env.WEBHOOK_ENDPOINT.idFromName(String(down.id)))
          ? {
              accept: () =>
                Promise.reject(new Error("Durable Object WebhookEndpoint is overloaded.")),
            }
          : env.WEBHOOK_ENDPOINT.get(id),
    } as unknown as Env["WEBHOOK_ENDPOINT"];
    const { result } = await consume(
      [
        { webhookId: down.id, eventIds: [eventId] },
        { webhookId: up.id, eventIds: [eventId] },
        { webhookId: down.id, eventIds: ["evt_0000000000000000000000000b"] },
      ],
      { WEBHOOK_ENDPOINT: namespace },
    );
    expect(result.explicitAcks).toEqual(["message-2"]);
    expect(result.retryMessages.map((retry) => retry.msgId).sort()).toEqual([
      "message-1",
      "message-3",
    ]);
    expect(await receivedAtLeast(up.name, 1)).toHaveLength(1);
    expect(await received(down.name)).toEqual([]);
  });

  it("the message goes back to the queue, nothing is sent, the fault is logged", async () => {
    const ok = await endpoint("ok");
    const unreachable = () =>
      Promise.reject(new Error("Durable Object WebhookEndpoint is overloaded."));
    const namespace = {
      idFromName: (name: string) => env.WEBHOOK_ENDPOINT.idFromName(name),
      get: () => ({ accept: unreachable }),
    } as unknown as Env["WEBHOOK_ENDPOINT"];
    const { result } = await consume([{ webhookId: ok.id, eventIds: [eventId] }], {
      WEBHOOK_ENDPOINT: namespace,
    });
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((retry) => retry.msgId)).toEqual(["message-1"]);
    expect(await received(ok.name)).toEqual([]);
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        level: "warn",
        message: "webhook delivery not handed to its endpoint; the queue retries it",
      }),
    );
  });
});
