import { changeWebhook, registerWebhook } from "../webhooks/endpoint-changes.ts";
import { MAX_WEBHOOKS } from "../webhooks/webhooks.schemas.ts";
import { noticeAndRedirect } from "./account.handlers.tsx";
import { signedInAs } from "./csrf.ts";
import type { FieldErrors } from "./form-values.ts";
import { accountOwner, ownWebhook, webhookNotFound, webhookPage } from "./own-webhook.ts";
import { WebhookFormPage } from "./pages/webhook-form-page.tsx";
import type { DashboardContext } from "./session.ts";
import {
  parseWebhookForm,
  urlRulesInBrief,
  type WebhookField,
  type WebhookFormValues,
} from "./webhook-form.ts";

async function renderWebhookForm(
  c: DashboardContext,
  form: { values: WebhookFormValues; errors?: FieldErrors<WebhookField>; formError?: string },
  webhookId?: number,
  status: 200 | 400 | 409 = 200,
) {
  const page = (
    <WebhookFormPage
      {...(await signedInAs(c))}
      urlHint={urlRulesInBrief(c.get("services").config.webhooks.urlPolicy)}
      webhookId={webhookId}
      {...form}
    />
  );
  return c.html(page, status);
}

export function showNewWebhook(c: DashboardContext) {
  return renderWebhookForm(c, { values: { url: "", types: [] } });
}

const capReached = `You already have ${MAX_WEBHOOKS} endpoints, the most an account may have. Delete one first, then register another.`;

/** Registers the endpoint through the one writer of endpoint state; its secret is shown once, on its page. */
export async function submitNewWebhookForm(c: DashboardContext) {
  const parsed = parseWebhookForm(c.get("form"), c.get("services").config.webhooks.urlPolicy);
  if (!parsed.ok) return renderWebhookForm(c, parsed, undefined, 400);
  const outcome = await registerWebhook(c.get("services"), {
    changer: { kind: "account", accountId: c.get("account").id },
    url: parsed.url,
    types: parsed.types,
    now: Date.now(),
  });
  if (outcome.kind === "limit_reached") {
    return renderWebhookForm(c, { values: parsed.values, formError: capReached }, undefined, 409);
  }
  if (outcome.kind !== "made")
    throw new Error(`a registration without a key answered ${outcome.kind}`);
  const { id, url, secret } = outcome.body;
  return noticeAndRedirect(
    c,
    { kind: "webhook-secret", made: "registered", url, secret },
    webhookPage(id),
  );
}

export async function showEditWebhook(c: DashboardContext) {
  const webhook = await ownWebhook(c);
  if (!webhook) return webhookNotFound(c);
  return renderWebhookForm(c, { values: { url: webhook.url, types: webhook.types } }, webhook.id);
}

/** Changes the endpoint's URL and kinds, for events committed after the change. */
export async function submitWebhookEditForm(c: DashboardContext) {
  const webhook = await ownWebhook(c);
  if (!webhook) return webhookNotFound(c);
  const parsed = parseWebhookForm(c.get("form"), c.get("services").config.webhooks.urlPolicy);
  if (!parsed.ok) return renderWebhookForm(c, parsed, webhook.id, 400);
  const change = { url: parsed.url, types: parsed.types };
  const changed = await changeWebhook(c.get("services"), accountOwner(c), webhook.id, change);
  if (!changed) return webhookNotFound(c);
  const text = `The endpoint now receives ${changed.types.join(", ")} at ${changed.url}, from the next event on.`;
  return noticeAndRedirect(c, { kind: "done", text }, webhookPage(changed.id));
}
