import type { Delivery, Webhook } from "../../webhooks/webhooks.schemas.ts";
import { CSRF_FIELD } from "../csrf.ts";
import type { Notice } from "../notices.ts";
import { DeliveryTable } from "./deliveries.tsx";
import { ConfirmActions, describedBy, FieldError } from "./form-fields.tsx";
import { formatUtc } from "./format.ts";
import { ACCOUNT_PAGE, Layout } from "./layout.tsx";
import { BackTo } from "./notice-view.tsx";
import { Action, statusText } from "./webhook-table.tsx";

interface WebhookPageProps {
  email: string;
  csrf: string;
  webhook: Webhook;
  /** A page of deliveries; undefined when the endpoint's object could not be asked. */
  deliveries: { deliveries: Delivery[]; hasMore: boolean } | undefined;
  /** The page shows deliveries older than this one; undefined for the newest. */
  before: number | undefined;
  notices: Notice[];
  /** The recovery form's value, and its error when it was refused. */
  recover: { since: string; error?: string };
}

function Facts({ webhook }: { webhook: Webhook }) {
  return (
    <dl class="facts">
      <dt>URL</dt>
      <dd class="url">
        <code>{webhook.url}</code>
      </dd>
      <dt>Events</dt>
      <dd>{webhook.types.join(", ")}</dd>
      <dt>Status</dt>
      <dd data-testid="webhook-status">{statusText(webhook)}</dd>
      <dt>Registered</dt>
      <dd>{formatUtc(new Date(webhook.createdAt))}</dd>
    </dl>
  );
}

function Recover({
  id,
  csrf,
  since,
  error,
}: { id: number; csrf: string } & WebhookPageProps["recover"]) {
  return (
    <section aria-labelledby="recover-heading">
      <h2 id="recover-heading">Recover missed events</h2>
      <form method="post" action={`/dashboard/webhooks/${id}/recover`} class="stacked">
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <div>
          <label for="since">Since (UTC)</label>
          <p class="hint" id="since-hint">
            Sends again, oldest first, every event since then that this endpoint wanted and did not
            receive: failed, or skipped while it was paused or disabled. Events are kept 30 days.
          </p>
          <FieldError id="since-error" errors={error ? [error] : undefined} />
          <input
            id="since"
            name="since"
            type="datetime-local"
            value={since}
            required
            autofocus={error !== undefined}
            aria-invalid={error ? "true" : undefined}
            aria-describedby={describedBy("since-hint", error && "since-error")}
          />
        </div>
        <button type="submit" class="secondary">
          Recover
        </button>
      </form>
    </section>
  );
}

function DeliveryPages(props: {
  id: number;
  before: number | undefined;
  next: number | undefined;
}) {
  const { id, before, next } = props;
  if (before === undefined && next === undefined) return null;
  return (
    <nav class="actions pages" aria-label="Deliveries">
      {before !== undefined && <a href={`/dashboard/webhooks/${id}`}>Newest deliveries</a>}
      {next !== undefined && (
        <a href={`/dashboard/webhooks/${id}?before=${next}`}>Older deliveries</a>
      )}
    </nav>
  );
}

/**
 * One endpoint: what it is, what can be done with it, its deliveries with
 * their attempts (a page at a time, Retry on each), and recovery of the
 * events it missed.
 */
export function WebhookPage(props: WebhookPageProps) {
  const { email, csrf, webhook, deliveries, before, notices, recover } = props;
  const id = webhook.id;
  const last = deliveries?.hasMore ? deliveries.deliveries.at(-1) : undefined;
  return (
    <Layout title="Webhook endpoint" signedIn={{ email, csrf }}>
      <BackTo href={ACCOUNT_PAGE} text="Back to your account" notices={notices} />
      <Facts webhook={webhook} />
      <div class="actions">
        <a class="button secondary" href={`/dashboard/webhooks/${id}/edit`}>
          Change URL or events
        </a>
        {webhook.status === "enabled" ? (
          <Action id={id} action="pause" label="Pause" csrf={csrf} />
        ) : (
          <Action id={id} action="resume" label="Resume" csrf={csrf} />
        )}
        <Action id={id} action="test" label="Send test" csrf={csrf} />
        <Action id={id} action="rotate-secret" label="Rotate secret" csrf={csrf} />
        <a class="button secondary danger" href={`/dashboard/webhooks/${id}/delete`}>
          Delete
        </a>
      </div>

      <h2>Deliveries</h2>
      {deliveries === undefined ? (
        <p class="error">Deliveries cannot be shown just now; reload in a moment.</p>
      ) : deliveries.deliveries.length === 0 ? (
        <p>{before === undefined ? "No deliveries yet." : "No older deliveries."}</p>
      ) : (
        <DeliveryTable webhookId={id} deliveries={deliveries.deliveries} csrf={csrf} />
      )}
      <DeliveryPages id={id} before={before} next={last?.id} />

      <Recover id={id} csrf={csrf} {...recover} />
    </Layout>
  );
}

/** Asks before deleting an endpoint, which cannot be undone. */
export function DeleteWebhookPage(props: { email: string; csrf: string; webhook: Webhook }) {
  const { email, csrf, webhook } = props;
  return (
    <Layout title="Delete this endpoint?" signedIn={{ email, csrf }}>
      <Facts webhook={webhook} />
      <p>
        It receives no more events, and its deliveries and their attempts are deleted with it. This
        cannot be undone: to receive events there again, register it anew, with a new secret.
      </p>
      <ConfirmActions
        action={`/dashboard/webhooks/${webhook.id}/delete`}
        csrf={csrf}
        confirm="Delete the endpoint"
        back={`/dashboard/webhooks/${webhook.id}`}
      />
    </Layout>
  );
}
