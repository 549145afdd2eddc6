import { Hono, type MiddlewareHandler } from "hono";
import { requireSession } from "./auth.handlers.tsx";
import type { DashboardEnv } from "./session.ts";
import {
  removeWebhook,
  retryDelivery,
  rotateSecret,
  sendWebhookTest,
  setWebhookEnabled,
} from "./webhook.handlers.ts";
import {
  createWebhook,
  showEditWebhook,
  showNewWebhook,
  updateWebhook,
} from "./webhook-form.handlers.tsx";
import { confirmDeleteWebhook, recoverEvents, showWebhook } from "./webhook-page.handlers.tsx";

/**
 * The webhook endpoints' pages, below /dashboard/webhooks: every page needs a
 * session, every post (`signedIn`) its CSRF token too.
 */
export function webhookPages(
  signedIn: readonly [MiddlewareHandler<DashboardEnv>, MiddlewareHandler<DashboardEnv>],
): Hono<DashboardEnv> {
  const webhooks = new Hono<DashboardEnv>();
  const session = requireSession();
  webhooks.get("/new", session, showNewWebhook);
  webhooks.post("/", ...signedIn, createWebhook);
  webhooks.get("/:id", session, showWebhook);
  webhooks.post("/:id", ...signedIn, updateWebhook);
  webhooks.get("/:id/edit", session, showEditWebhook);
  webhooks.get("/:id/delete", session, confirmDeleteWebhook);
  webhooks.post("/:id/delete", ...signedIn, removeWebhook);
  webhooks.post("/:id/pause", ...signedIn, setWebhookEnabled(false));
  webhooks.post("/:id/resume", ...signedIn, setWebhookEnabled(true));
  webhooks.post("/:id/test", ...signedIn, sendWebhookTest);
  webhooks.post("/:id/rotate-secret", ...signedIn, rotateSecret);
  webhooks.post("/:id/recover", ...signedIn, recoverEvents);
  webhooks.post("/:id/deliveries/:deliveryId/retry", ...signedIn, retryDelivery);
  return webhooks;
}
