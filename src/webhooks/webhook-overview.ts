import type { Services } from "../services.ts";
import { listWebhooks } from "./webhooks.queries.ts";
import type { Delivery, Webhook } from "./webhooks.schemas.ts";

/** An endpoint as the dashboard lists it: with its latest delivery, if any and if its object answered. */
export interface WebhookWithLatestDelivery extends Webhook {
  latestDelivery: Delivery | null;
}

/** The account's endpoints, oldest first, each with its latest delivery from its object. */
export async function listWebhooksWithLatestDelivery(
  services: Services,
  accountId: number,
): Promise<WebhookWithLatestDelivery[]> {
  const webhooks = await listWebhooks(services.db, { kind: "account", accountId });
  return Promise.all(
    webhooks.map(async (webhook) => {
      const page = await services.webhookEndpoints
        .deliveries(webhook.id, { beforeId: undefined, limit: 1 })
        .catch(() => undefined);
      return { ...webhook, latestDelivery: page?.deliveries[0] ?? null };
    }),
  );
}
