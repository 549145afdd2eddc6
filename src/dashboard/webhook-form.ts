import { EVENT_TYPES } from "../db/schema.ts";
import { EVENT_FAMILIES, type EventTypeSelector } from "../events/events.schemas.ts";
import {
  isAllowedWebhookUrl,
  MAX_WEBHOOK_URL_LENGTH,
  type WebhookUrlPolicy,
} from "../webhook-urls/webhook-url.ts";
import { newWebhookSchema } from "../webhooks/webhooks.schemas.ts";
import { type FieldErrors, type PostedForm, textOf, textsOf } from "./form-values.ts";

/** Every choice of the types field, families first within their kinds' group. */
export const EVENT_GROUPS = EVENT_FAMILIES.map((family) => ({
  family,
  kinds: EVENT_TYPES.filter((kind) => kind.startsWith(family.slice(0, -1))),
}));

/** The endpoint form's fields, in the order the page shows them. */
export const WEBHOOK_FIELDS = ["url", "types"] as const;
export type WebhookField = (typeof WEBHOOK_FIELDS)[number];

/** The form as posted, to show again when it is refused. */
export interface WebhookFormValues {
  url: string;
  types: string[];
}

/** The URL rules in a sentence, for the field's hint and its error. */
export function urlRulesInBrief(policy: WebhookUrlPolicy): string {
  const local = policy.allowLoopbackHttp
    ? " This environment also accepts http://127.0.0.1 on any port, for local receivers."
    : "";
  return `An https:// URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters on a public host: not localhost, not a private, loopback, link-local or reserved address, no user name or password, no #fragment.${local}`;
}

const MAX_TYPES = 7;

const URL_REFUSED =
  "This URL cannot receive events: use an https:// URL on a public host, as the rules above say.";

/**
 * What the endpoint form asks for, checked by the API's own rules (the body
 * of createWebhook, and this environment's URL policy), with a sentence per
 * field a person can act on.
 */
export function parseWebhookForm(
  form: PostedForm,
  policy: WebhookUrlPolicy,
):
  | { ok: true; url: string; types: EventTypeSelector[]; values: WebhookFormValues }
  | { ok: false; errors: FieldErrors<WebhookField>; values: WebhookFormValues } {
  const values = { url: textOf(form, "url").trim(), types: textsOf(form, "types") };
  const errors: FieldErrors<WebhookField> = {};
  if (values.url === "") errors.url = ["Enter the URL to send events to."];
  else if (!isAllowedWebhookUrl(values.url, policy)) errors.url = [URL_REFUSED];
  const parsed = newWebhookSchema(policy).safeParse(values);
  if (values.types.length === 0) errors.types = ["Choose at least one kind of event."];
  else if (values.types.length > MAX_TYPES) {
    errors.types = [
      `Choose at most ${MAX_TYPES}: a family (such as every animal event) counts as one.`,
    ];
  } else if (!parsed.success && parsed.error.issues.some((issue) => issue.path[0] === "types")) {
    errors.types = ["Choose each kind of event at most once, from the list."];
  }
  if (!parsed.success && Object.keys(errors).length === 0) errors.url = [URL_REFUSED];
  if (!parsed.success || Object.keys(errors).length > 0) return { ok: false, errors, values };
  return { ok: true, url: parsed.data.url, types: parsed.data.types, values };
}
