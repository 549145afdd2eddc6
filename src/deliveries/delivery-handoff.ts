import { log } from "../logging.ts";
import type { DeliveryMessage } from "../outbox/outbox.queries.ts";
import type { WebhookEndpointClient } from "./endpoint-client.ts";

/**
 * A batch's messages by endpoint, in batch order, each endpoint's events
 * in the order of its messages. While the consumer is busy, the queue
 * gathers several dispatches' messages into the next batch, many of them
 * for the same endpoints: one call per endpoint then carries them all, so
 * its object records them in one write and sends them in one run.
 */
function byEndpoint(messages: readonly Message<DeliveryMessage>[]) {
  const grouped = new Map<number, { eventIds: string[]; messages: Message<DeliveryMessage>[] }>();
  for (const message of messages) {
    const { webhookId, eventIds } = message.body;
    const group = grouped.get(webhookId) ?? { eventIds: [], messages: [] };
    group.eventIds.push(...eventIds);
    group.messages.push(message);
    grouped.set(webhookId, group);
  }
  return grouped;
}

/**
 * The queue consumer: hands each endpoint's events to its Durable Object,
 * which records them, in order, before answering and delivers them from
 * then on, and returns. Nothing here waits on a receiver, so one endpoint's
 * slowness never holds another's messages. Messages whose object could not
 * take them go back to the queue; their retries end in the dead-letter queue.
 */
export async function handOverBatch(
  endpoints: WebhookEndpointClient,
  batch: MessageBatch<DeliveryMessage>,
): Promise<void> {
  await Promise.all(
    [...byEndpoint(batch.messages)].map(async ([webhookId, { eventIds, messages }]) => {
      try {
        await endpoints.accept(webhookId, eventIds);
        for (const message of messages) message.ack();
      } catch {
        // The storage guard has logged the fault.
        log("warn", "webhook delivery not handed to its endpoint; the queue retries it", {
          webhookId,
          events: eventIds.length,
        });
        for (const message of messages) message.retry();
      }
    }),
  );
}
