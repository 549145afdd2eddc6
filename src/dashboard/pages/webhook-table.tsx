import type { WebhookWithLatestDelivery } from "../../webhooks/webhook-overview.ts";
import type { Delivery } from "../../webhooks/webhooks.schemas.ts";
import { formatUtc } from "./format.ts";

function answerOf(delivery: Delivery): string {
  const last = delivery.attempts.at(-1);
  if (!last) return "not attempted yet";
  return last.responseStatus === null ? (last.error ?? "no answer") : `HTTP ${last.responseStatus}`;
}

/** The latest delivery in words: what happened, when, and what follows. */
function latestDeliveryText(delivery: Delivery | null): string {
  if (!delivery) return "None yet";
  const at = formatUtc(new Date(delivery.attempts.at(-1)?.attemptedAt ?? delivery.createdAt));
  switch (delivery.status) {
    case "succeeded":
      return `Delivered ${at} (${answerOf(delivery)})`;
    case "pending":
      return delivery.attempts.length === 0
        ? `On its way since ${at}`
        : `Failing since ${at} (${answerOf(delivery)}); retrying`;
    case "failed":
      return `Failed ${at} (${answerOf(delivery)}); no more retries`;
    case "skipped":
      return `Skipped ${at}: the endpoint was disabled`;
  }
}

function statusText(webhook: WebhookWithLatestDelivery): string {
  if (webhook.status === "enabled") return "Enabled";
  return webhook.disabledReason ? `Disabled: ${webhook.disabledReason}` : "Paused";
}

/**
 * The account's webhook endpoints, each with its status and its latest
 * delivery. Narrow screens get one card per endpoint, as for keys.
 */
export function WebhookTable({ webhooks }: { webhooks: WebhookWithLatestDelivery[] }) {
  return (
    <table class="keys webhooks">
      <thead>
        <tr>
          <th scope="col">Endpoint</th>
          <th scope="col">Events</th>
          <th scope="col">Registered</th>
          <th scope="col">Status</th>
          <th scope="col">Latest delivery</th>
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
            <td data-label="Status" data-status={webhook.status}>
              {statusText(webhook)}
            </td>
            <td
              data-label="Latest delivery"
              data-delivery-status={webhook.latestDelivery?.status ?? "none"}
            >
              {latestDeliveryText(webhook.latestDelivery)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
