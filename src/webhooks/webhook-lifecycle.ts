import type { Services } from "../services.ts";
import { type EndpointChange, type Owner, updateWebhook } from "./webhooks.queries.ts";
import type { Webhook } from "./webhooks.schemas.ts";

/**
 * Changes an endpoint, for the API and the dashboard alike: D1 first (the
 * system of record its object reads before each attempt), then, when it is
 * enabled again, its object, whose health starts afresh. Undefined when the
 * owner has no endpoint by that id.
 */
export async function changeWebhook(
  services: Services,
  owner: Owner,
  id: number,
  change: EndpointChange,
): Promise<Webhook | undefined> {
  const webhook = await updateWebhook(services.db, owner, id, change);
  if (webhook && change.enabled === true) await services.webhookEndpoints.enabled(id);
  return webhook;
}
