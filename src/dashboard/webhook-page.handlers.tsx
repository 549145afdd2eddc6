import { DAY_MS } from "../rate-limit/windows.ts";
import type { Webhook } from "../webhooks/webhooks.schemas.ts";
import { noticeAndRedirect } from "./account.handlers.tsx";
import { signedInAs } from "./csrf.ts";
import { textOf } from "./form-values.ts";
import { takeNotices } from "./notices.ts";
import { ownWebhook, webhookNotFound, webhookPage } from "./own-webhook.ts";
import { formatQuantity, formatUtc } from "./pages/format.ts";
import { DeleteWebhookPage, WebhookPage } from "./pages/webhook-page.tsx";
import type { DashboardContext } from "./session.ts";
import { throttleSends } from "./webhook.handlers.ts";

/** Deliveries on one page of the endpoint's. */
const DELIVERIES_PER_PAGE = 20;

/** An instant as a `datetime-local` field shows it: to the minute, in UTC, as the page says. */
const asLocalField = (at: number) => new Date(at).toISOString().slice(0, 16);

/**
 * The endpoint's page. A refused recovery re-renders it with its error and
 * its 400; otherwise it takes the session's notices, last, so a failure on
 * the way never loses a secret unseen. Deliveries its object cannot give
 * are left out rather than failing the page.
 */
async function renderWebhook(
  c: DashboardContext,
  webhook: Webhook,
  recover: { since: string; error?: string } = { since: asLocalField(Date.now() - DAY_MS) },
) {
  const beforeText = c.req.query("before") ?? "";
  const before = /^\d{1,15}$/.test(beforeText) ? Number(beforeText) : undefined;
  const deliveries = await c
    .get("services")
    .webhookEndpoints.deliveries(webhook.id, { beforeId: before, limit: DELIVERIES_PER_PAGE })
    .catch(() => undefined);
  const signedIn = await signedInAs(c);
  const notices = recover.error ? [] : await takeNotices(c.get("services").db, c.get("session"));
  const page = (
    <WebhookPage
      {...signedIn}
      webhook={webhook}
      deliveries={deliveries}
      before={before}
      notices={notices}
      recover={recover}
    />
  );
  return c.html(page, recover.error ? 400 : 200);
}

export async function showWebhook(c: DashboardContext) {
  const webhook = await ownWebhook(c);
  return webhook ? renderWebhook(c, webhook) : webhookNotFound(c);
}

/** The instant a `datetime-local` field gave, read as UTC, or why it is not one to recover from. */
function sinceOf(text: string, now: number): { at: number } | { error: string } {
  const match = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?$/.test(text);
  const at = match ? Date.parse(`${text}Z`) : Number.NaN;
  if (text === "") return { error: "Enter the date and time (UTC) to recover events from." };
  if (Number.isNaN(at)) return { error: "Enter a date and time (UTC), such as 2026-05-04T12:30." };
  if (at > now)
    return { error: "Choose a time in the past: only events already made can be sent again." };
  return { at };
}

/** Queues again the endpoint's own deliveries since then that failed or were skipped. */
export async function submitRecoverForm(c: DashboardContext) {
  const webhook = await ownWebhook(c);
  if (!webhook) return webhookNotFound(c);
  const text = textOf(c.get("form"), "since").trim();
  const since = sinceOf(text, Date.now());
  if ("error" in since) return renderWebhook(c, webhook, { since: text, error: since.error });
  const refused = await throttleSends(c);
  if (refused) return refused;
  const queued = await c.get("services").webhookEndpoints.recover(webhook.id, since.at);
  const from = formatUtc(new Date(since.at));
  const done =
    queued === 0
      ? `No events since ${from} needed sending again: the endpoint missed none it wanted.`
      : `${formatQuantity(queued, "event")} since ${from} ${queued === 1 ? "is" : "are"} on ${queued === 1 ? "its" : "their"} way to the endpoint again, oldest first.`;
  return noticeAndRedirect(c, { kind: "done", text: done }, webhookPage(webhook.id));
}

/** Asks before deleting: the page's form is the only thing that posts the deletion. */
export async function confirmDeleteWebhook(c: DashboardContext) {
  const webhook = await ownWebhook(c);
  if (!webhook) return webhookNotFound(c);
  const signedIn = await signedInAs(c);
  return c.html(<DeleteWebhookPage {...signedIn} webhook={webhook} />);
}
