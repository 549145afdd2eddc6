import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { DeliveryLog } from "../../../src/deliveries/delivery-log.ts";
import { createPet } from "../support/assertions.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { eventually, feed, receiverUrl, registerWebhook, uniqueName } from "../support/webhooks.ts";

/*
 * An attempt under way is leased: should the object be evicted before it
 * records the outcome, the delivery falls due again when the lease ends,
 * and the alarm, set by then, sends it once more. The run sets the alarm
 * once, at its first lease's end, and no later than any lease it holds.
 */

const TIMEOUT_MS = Number(env.WEBHOOK_TIMEOUT_MS);
/** One more than the object's attempts at once, so a second round is leased while the first runs. */
const DELIVERIES = 7;

let key: string;

beforeAll(async () => {
  ({ key } = await seedUnlimitedKey());
});

afterEach(async () => {
  await env.DB.prepare("DELETE FROM webhooks").run();
});

describe("while attempts are under way", () => {
  it("the alarm is set, no later than the end of any lease held", async () => {
    // It hears nothing by itself: its deliveries are the ones the test records.
    const webhook = await registerWebhook(key, receiverUrl("hang", uniqueName("leased")), [
      "order.cancelled",
    ]);
    const pets = [];
    for (let i = 0; i < DELIVERIES; i++) {
      pets.push(await createPet(key, { name: `Leased ${i}`, categoryId: 3 }));
    }
    const created = await feed(key, "pet.created");
    const eventIds = pets.map((pet) => created.find((event) => event.data.id === pet.id)?.id ?? "");
    const object = env.WEBHOOK_ENDPOINT.get(env.WEBHOOK_ENDPOINT.idFromName(String(webhook.id)));

    const seen = await runInDurableObject(object, async (instance, state) => {
      // The deliveries as the consumer records them, without setting the object's alarm.
      state.storage.kv.put("webhookId", webhook.id);
      const log = new DeliveryLog(state.storage.sql);
      for (const eventId of eventIds) log.add(eventId, Date.now());
      const run = instance.alarm();
      // The first round times out, and the seventh delivery is leased in a round of its own.
      const leases = await eventually("a second round leased", async () => {
        const ends = state.storage.sql
          .exec<{ due_at: number }>(
            "SELECT due_at FROM deliveries WHERE status = 'pending' AND due_at > ?",
            Date.now() + TIMEOUT_MS,
          )
          .toArray()
          .map((row) => row.due_at);
        const attempted = state.storage.sql
          .exec<{ n: number }>("SELECT count(*) AS n FROM attempts")
          .one().n;
        return attempted > 0 && ends.length > 0 ? ends : undefined;
      });
      const alarm = await state.storage.getAlarm();
      await run;
      return { leases, alarm };
    });
    expect(seen.alarm).not.toBeNull();
    expect(seen.alarm).toBeGreaterThan(Date.now());
    expect(seen.alarm).toBeLessThanOrEqual(Math.min(...seen.leases));
  });
});
