import type { Delivery, DeliveryAttempt } from "../../webhooks/webhooks.schemas.ts";
import { PostButton } from "./form-fields.tsx";
import { formatUtc } from "./format.ts";
import { ColumnHeads } from "./layout.tsx";

const STATUS_NAMES: Record<Delivery["status"], string> = {
  pending: "On its way",
  succeeded: "Delivered",
  failed: "Failed",
  skipped: "Skipped: the endpoint was paused or disabled",
};

function attemptText(attempt: DeliveryAttempt): string {
  const answer =
    attempt.responseStatus === null
      ? (attempt.error ?? "no answer")
      : `HTTP ${attempt.responseStatus}`;
  return `${formatUtc(new Date(attempt.attemptedAt))}: ${answer}`;
}

function Attempts({ attempts }: { attempts: DeliveryAttempt[] }) {
  if (attempts.length === 0) return <span class="muted">None yet</span>;
  return (
    <ol class="attempts">
      {attempts.map((attempt) => (
        <li>{attemptText(attempt)}</li>
      ))}
    </ol>
  );
}

/**
 * A page of the endpoint's deliveries, newest first, each with its attempts
 * and a Retry button; narrow screens get one card per delivery.
 */
export function DeliveryTable(props: { webhookId: number; deliveries: Delivery[]; csrf: string }) {
  const { webhookId, deliveries, csrf } = props;
  return (
    <table class="cards deliveries">
      <ColumnHeads names={["Event", "Status", "Attempts", "Next attempt", "Actions"]} />
      <tbody>
        {deliveries.map((delivery) => (
          <tr data-delivery-id={String(delivery.id)} data-delivery-status={delivery.status}>
            <td data-label="Event">
              <div>
                <code>{delivery.eventId}</code>
                <br />
                <span class="muted">Taken {formatUtc(new Date(delivery.createdAt))}</span>
              </div>
            </td>
            <td data-label="Status">{STATUS_NAMES[delivery.status]}</td>
            <td data-label="Attempts">
              <Attempts attempts={delivery.attempts} />
            </td>
            <td data-label="Next attempt">
              {delivery.nextAttemptAt ? formatUtc(new Date(delivery.nextAttemptAt)) : "—"}
            </td>
            <td data-label="Actions">
              <PostButton
                action={`/dashboard/webhooks/${webhookId}/deliveries/${delivery.id}/retry`}
                label="Retry"
                csrf={csrf}
              />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
