import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { DeliveryLog } from "../../../src/deliveries/delivery-log.ts";
import { WebhookEndpoint } from "../../../src/deliveries/webhook-endpoint.ts";
import { createPet } from "../support/assertions.ts";
import { failingD1 } from "../support/faulty-bindings.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { captureLogs } from "../support/logs.ts";
import {
  feed,
  received,
  receivedAtLeast,
  receiverUrl,
  registerWebhook,
  uniqueName,
} from "../support/webhooks.ts";

/*
 * When an endpoint's object cannot read D1 (the endpoint, the events' bodies),
 * it tries again within seconds, twice as long after each failure, up to a
 * minute, and delivers once D1 answers. The object is run over a failing D1
 * binding, and its clock moved on by running its alarm, without waiting.
 */

/** What each retry waits after 1, 2, … failures in a row, in milliseconds. */
const BACKOFF = [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000];

let key: string;

beforeAll(async () => {
  ({ key } = await seedUnlimitedKey());
});

afterEach(async () => {
  await env.DB.prepare("DELETE FROM webhooks").run();
});

describe("when the endpoint's object cannot read D1", () => {
  const logs = captureLogs();

  it("tries again within seconds, backing off, and delivers once D1 answers", async () => {
    const name = uniqueName("d1-down");
    // It hears nothing by itself: the one delivery is the one the test records.
    const webhook = await registerWebhook(key, receiverUrl("ok", name), ["order.cancelled"]);
    const pet = await createPet(key, { name: "Waiting", categoryId: 2 });
    const event = (await feed(key, "pet.created")).find((item) => item.data.id === pet.id);
    const object = env.WEBHOOK_ENDPOINT.get(env.WEBHOOK_ENDPOINT.idFromName(String(webhook.id)));

    const { waits, failures } = await runInDurableObject(object, async (_, state) => {
      // The delivery as the consumer records it, without setting the object's alarm.
      state.storage.kv.put("webhookId", webhook.id);
      new DeliveryLog(state.storage.sql).add(event?.id ?? "", Date.now());
      const cutOff = new WebhookEndpoint(state, { ...env, DB: failingD1() });
      const waits: number[] = [];
      for (const _ of BACKOFF) {
        const ranAt = Date.now();
        await cutOff.alarm();
        waits.push(((await state.storage.getAlarm()) ?? 0) - ranAt);
      }
      return { waits, failures: state.storage.kv.get<number>("storageFailures") };
    });
    expect(failures).toBe(BACKOFF.length);
    waits.forEach((wait, i) => {
      expect(wait, `retry ${i + 1}`).toBeGreaterThanOrEqual(BACKOFF[i] ?? 0);
      expect(wait, `retry ${i + 1}`).toBeLessThan((BACKOFF[i] ?? 0) + 1_000);
    });
    expect(await received(name)).toEqual([]);
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        level: "error",
        message: "webhook endpoint could not read its endpoint or events",
        failures: 1,
        retryMs: 1_000,
      }),
    );

    // The retry's time comes, and D1 answers: the delivery goes out, the count starts afresh.
    expect(await runDurableObjectAlarm(object)).toBe(true);
    const [request] = await receivedAtLeast(name, 1);
    expect(request?.headers["webhook-id"]).toBe(event?.id);
    const after = await runInDurableObject(object, (_, state) =>
      state.storage.kv.get("storageFailures"),
    );
    expect(after).toBeUndefined();
  });
});
