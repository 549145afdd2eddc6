import type { WebhookWithLastDelivery } from "../../webhooks/webhooks.queries.ts";
import { formatUtc } from "./format.ts";

type LastDelivery = WebhookWithLastDelivery["lastDelivery"];

function answerOf(delivery: NonNullable<LastDelivery>): string {
  return delivery.responseStatus === null
    ? (delivery.error ?? "no answer")
    : `HTTP ${delivery.responseStatus}`;
}

/** The latest attempt in words: what happened, when, and what follows. */
function lastDeliveryText(delivery: LastDelivery): string {
  if (!delivery) return "None yet";
  const at = formatUtc(new Date(delivery.attemptedAt));
  switch (delivery.outcome) {
    case "succeeded":
      return `Delivered ${at} (${answerOf(delivery)})`;
    case "retrying":
      return `Failing since ${at} (${answerOf(delivery)}); retrying`;
    case "failed":
      return `Failed ${at} (${answerOf(delivery)}); no more retries`;
  }
}

/**
 * The account's webhook endpoints, each with the outcome of its latest
 * delivery attempt. Narrow screens get one card per endpoint, as for keys.
 */
export function WebhookTable({ webhooks }: { webhooks: WebhookWithLastDelivery[] }) {
  return (
    <table class="keys webhooks">
      <thead>
        <tr>
          <th scope="col">Endpoint</th>
          <th scope="col">Events</th>
          <th scope="col">Registered</th>
          <th scope="col">Last delivery</th>
        </tr>
      </thead>
      <tbody>
        {webhooks.map((webhook) => (
          <tr data-webhook-id={String(webhook.id)}>
            <td data-label="Endpoint" class="url">
              <code>{webhook.url}</code>
            </td>
            <td data-label="Events">{webhook.types.join(", ")}</td>
            <td data-label="Registered" class="nowrap">
              {formatUtc(new Date(webhook.createdAt))}
            </td>
            <td data-label="Last delivery" data-outcome={webhook.lastDelivery?.outcome ?? "none"}>
              {lastDeliveryText(webhook.lastDelivery)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
