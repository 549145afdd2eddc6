import { log } from "../logging.ts";
import type { DeliveryMessage } from "../outbox/outbox.queries.ts";
import type { WebhookEndpointClient } from "./endpoint-client.ts";

/**
 * The queue consumer: hands each message's events to its endpoint's Durable
 * Object, which records them, in order, before answering and delivers them
 * from then on, and returns. Nothing here waits on a receiver, so one endpoint's
 * slowness never holds another's messages. A message whose object could not
 * take it goes back to the queue; its retries end in the dead-letter queue.
 */
export async function handOverBatch(
  endpoints: WebhookEndpointClient,
  batch: MessageBatch<DeliveryMessage>,
): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      const { webhookId, eventIds } = message.body;
      try {
        await endpoints.accept(webhookId, eventIds);
        message.ack();
      } catch {
        // The storage guard has logged the fault.
        log("warn", "webhook delivery not handed to its endpoint; the queue retries it", {
          webhookId,
          events: eventIds.length,
        });
        message.retry();
      }
    }),
  );
}
