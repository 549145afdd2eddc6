import type { WebhookWithLatestDelivery } from "../../webhooks/webhook-overview.ts";
import type { Delivery, Webhook } from "../../webhooks/webhooks.schemas.ts";
import { PostButton } from "./form-fields.tsx";
import { formatUtc } from "./format.ts";
import { ColumnHeads } from "./layout.tsx";

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

/** The endpoint's status in words: enabled, paused by its owner, or disabled by the service and why. */
export function statusText(webhook: Webhook): string {
  if (webhook.status === "enabled") return "Enabled";
  return webhook.disabledReason ? `Disabled: ${webhook.disabledReason}` : "Paused";
}

/** One action on an endpoint: a form that posts to the dashboard and ends on the endpoint's page. */
export function Action(props: { id: number; action: string; label: string; csrf: string }) {
  const { id, action, label, csrf } = props;
  return <PostButton action={`/dashboard/webhooks/${id}/${action}`} label={label} csrf={csrf} />;
}

/**
 * The account's webhook endpoints, each linking to its page, with its
 * status, its latest delivery, Pause or Resume, and Send test. Narrow
 * screens get one card per endpoint, as for keys.
 */
export function WebhookTable({
  webhooks,
  csrf,
}: {
  webhooks: WebhookWithLatestDelivery[];
  csrf: string;
}) {
  return (
    <table class="cards webhooks">
      <ColumnHeads
        names={["Endpoint", "Events", "Registered", "Status", "Latest delivery", "Actions"]}
      />
      <tbody>
        {webhooks.map((webhook) => (
          <tr data-webhook-id={String(webhook.id)}>
            <td data-label="Endpoint" class="url">
              <a href={`/dashboard/webhooks/${webhook.id}`}>
                <code>{webhook.url}</code>
              </a>
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
            <td data-label="Actions">
              <div class="actions">
                {webhook.status === "enabled" ? (
                  <Action id={webhook.id} action="pause" label="Pause" csrf={csrf} />
                ) : (
                  <Action id={webhook.id} action="resume" label="Resume" csrf={csrf} />
                )}
                <Action id={webhook.id} action="test" label="Send test" csrf={csrf} />
              </div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
