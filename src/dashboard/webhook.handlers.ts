import type { Budget } from "../rate-limit/rate-limit-types.ts";
import { changeWebhook, deleteWebhook, rotateWebhookSecret } from "../webhooks/endpoint-changes.ts";
import { noticeAndRedirect } from "./account.handlers.tsx";
import { accountOwner, idParam, ownWebhook, webhookNotFound, webhookPage } from "./own-webhook.ts";
import { messageResponse } from "./pages/layout.tsx";
import type { DashboardContext } from "./session.ts";

/*
 * What the endpoint page's buttons do. Each goes through the same modules
 * as the API (the one writer of endpoint state, the endpoint's object
 * through its client) and ends on the endpoint's page with a notice saying
 * what happened.
 */

/**
 * Sends (a test, a retry, a recovery) make the Worker call a URL its owner
 * chose; the API counts them against the key's limits, the dashboard
 * against this budget per account.
 */
const SENDS_PER_ACCOUNT: Budget = { limit: 30, per: "minute" };

/** Counts one send of the account: a 429 page when its budget is spent, else undefined. */
export async function throttleSends(c: DashboardContext): Promise<Response | undefined> {
  const hit = await c
    .get("services")
    .limiter.hitNamed(`dashboard-sends:${c.get("account").id}`, SENDS_PER_ACCOUNT);
  if (hit.outcome === "allowed") return undefined;
  const seconds = Math.max(1, hit.retryAfter ?? 60);
  c.header("Retry-After", String(seconds));
  const message = `You have sent ${SENDS_PER_ACCOUNT.limit} tests, retries and recoveries this minute, the most the dashboard sends. Wait ${seconds} seconds, then try again.`;
  return messageResponse(c, 429, "Too many sends", message);
}

/** Pause (`enabled: false`) or resume an endpoint. */
export function submitPauseOrResumeForm(enabled: boolean) {
  return async function submitPauseOrResumeForm(c: DashboardContext) {
    const id = idParam(c, "id");
    const changed =
      id === undefined
        ? undefined
        : await changeWebhook(c.get("services"), accountOwner(c), id, { enabled });
    if (!changed) return webhookNotFound(c);
    const text = enabled
      ? `The endpoint ${changed.url} is enabled again: it receives events from now on. To send it the events it missed, use Recover below.`
      : `The endpoint ${changed.url} is paused: no attempts are made, and the events it would receive meanwhile are recorded as skipped.`;
    return noticeAndRedirect(c, { kind: "done", text }, webhookPage(changed.id));
  };
}

/** A signed `webhook.test` event to the endpoint, now. */
export async function submitTestSendForm(c: DashboardContext) {
  const webhook = await ownWebhook(c);
  if (!webhook) return webhookNotFound(c);
  const refused = await throttleSends(c);
  if (refused) return refused;
  const delivery = await c.get("services").webhookEndpoints.sendTest(webhook.id);
  const text = `A test event (${delivery.eventId}) is on its way to ${webhook.url}; its delivery is listed below.`;
  return noticeAndRedirect(c, { kind: "done", text }, webhookPage(webhook.id));
}

/** That delivery's event again, now, with the same `webhook-id`. */
export async function submitRetryForm(c: DashboardContext) {
  const webhook = await ownWebhook(c);
  const deliveryId = idParam(c, "deliveryId");
  if (!webhook) return webhookNotFound(c);
  const refused = await throttleSends(c);
  if (refused) return refused;
  const delivery =
    deliveryId === undefined
      ? undefined
      : await c.get("services").webhookEndpoints.retry(webhook.id, deliveryId);
  if (!delivery) {
    return messageResponse(c, 404, "Delivery not found", "This endpoint has no such delivery.", {
      href: webhookPage(webhook.id),
      text: "Back to the endpoint",
    });
  }
  const text = `The event ${delivery.eventId} is being sent to the endpoint again now; the new attempt is listed with its delivery below.`;
  return noticeAndRedirect(c, { kind: "done", text }, webhookPage(webhook.id));
}

/** A new signing secret, shown once; the old one signs too for 24 hours. */
export async function submitRotateSecretForm(c: DashboardContext) {
  const id = idParam(c, "id");
  const outcome =
    id === undefined
      ? undefined
      : await rotateWebhookSecret(c.get("services"), {
          changer: { kind: "account", accountId: c.get("account").id },
          id,
          now: Date.now(),
        });
  if (outcome?.kind !== "made") return webhookNotFound(c);
  const { body } = outcome;
  const notice = {
    kind: "webhook-secret",
    made: "rotated",
    url: body.url,
    secret: body.secret,
  } as const;
  return noticeAndRedirect(c, notice, webhookPage(body.id));
}

/** Deletes the endpoint (after the confirmation page), then back to the account page. */
export async function submitDeleteWebhookForm(c: DashboardContext) {
  const webhook = await ownWebhook(c);
  if (!webhook || !(await deleteWebhook(c.get("services"), accountOwner(c), webhook.id))) {
    return webhookNotFound(c);
  }
  const text = `The endpoint ${webhook.url} is deleted: it receives no more events.`;
  return noticeAndRedirect(c, { kind: "done", text });
}
