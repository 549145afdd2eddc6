import { Hono, type MiddlewareHandler } from "hono";
import { requireSession } from "./auth.handlers.tsx";
import type { DashboardEnv } from "./session.ts";
import {
  submitDeleteWebhookForm,
  submitPauseOrResumeForm,
  submitRetryForm,
  submitRotateSecretForm,
  submitTestSendForm,
} from "./webhook.handlers.ts";
import {
  showEditWebhook,
  showNewWebhook,
  submitNewWebhookForm,
  submitWebhookEditForm,
} from "./webhook-form.handlers.tsx";
import { confirmDeleteWebhook, showWebhook, submitRecoverForm } from "./webhook-page.handlers.tsx";

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
  webhooks.post("/", ...signedIn, submitNewWebhookForm);
  webhooks.get("/:id", session, showWebhook);
  webhooks.post("/:id", ...signedIn, submitWebhookEditForm);
  webhooks.get("/:id/edit", session, showEditWebhook);
  webhooks.get("/:id/delete", session, confirmDeleteWebhook);
  webhooks.post("/:id/delete", ...signedIn, submitDeleteWebhookForm);
  webhooks.post("/:id/pause", ...signedIn, submitPauseOrResumeForm(false));
  webhooks.post("/:id/resume", ...signedIn, submitPauseOrResumeForm(true));
  webhooks.post("/:id/test", ...signedIn, submitTestSendForm);
  webhooks.post("/:id/rotate-secret", ...signedIn, submitRotateSecretForm);
  webhooks.post("/:id/recover", ...signedIn, submitRecoverForm);
  webhooks.post("/:id/deliveries/:deliveryId/retry", ...signedIn, submitRetryForm);
  return webhooks;
}
