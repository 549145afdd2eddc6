import type { Hono } from "hono";
import { recordPages, type SignedIn } from "./record-pages.ts";
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
 * The webhook endpoints' pages, below /dashboard/webhooks (the account's
 * page lists them), with what an endpoint's page posts besides an edit.
 */
export function webhookPages(signedIn: SignedIn): Hono<DashboardEnv> {
  const webhooks = recordPages(signedIn, {
    showNew: showNewWebhook,
    create: submitNewWebhookForm,
    show: showWebhook,
    update: submitWebhookEditForm,
    showEdit: showEditWebhook,
    confirmDelete: confirmDeleteWebhook,
    delete: submitDeleteWebhookForm,
  });
  webhooks.post("/:id/pause", ...signedIn, submitPauseOrResumeForm(false));
  webhooks.post("/:id/resume", ...signedIn, submitPauseOrResumeForm(true));
  webhooks.post("/:id/test", ...signedIn, submitTestSendForm);
  webhooks.post("/:id/rotate-secret", ...signedIn, submitRotateSecretForm);
  webhooks.post("/:id/recover", ...signedIn, submitRecoverForm);
  webhooks.post("/:id/deliveries/:deliveryId/retry", ...signedIn, submitRetryForm);
  return webhooks;
}
