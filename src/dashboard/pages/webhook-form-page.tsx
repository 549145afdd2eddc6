import { CSRF_FIELD } from "../csrf.ts";
import { type FieldErrors, firstInError } from "../form-values.ts";
import {
  EVENT_GROUPS,
  WEBHOOK_FIELDS,
  type WebhookField,
  type WebhookFormValues,
} from "../webhook-form.ts";
import { Choice, Choices, describedBy, FieldError, FormActions } from "./form-fields.tsx";
import { ACCOUNT_PAGE, Layout } from "./layout.tsx";

const FAMILY_NAMES: Record<(typeof EVENT_GROUPS)[number]["family"], string> = {
  "pet.*": "Every animal event",
  "category.*": "Every category event",
  "shelter.*": "Every shelter event",
  "order.*": "Every event of your orders",
};

interface WebhookFormPageProps {
  email: string;
  csrf: string;
  values: WebhookFormValues;
  errors?: FieldErrors<WebhookField>;
  /** A refusal of the whole form (the account's cap of endpoints). */
  formError?: string;
  urlHint: string;
  /** Undefined: register a new endpoint; else change this one. */
  webhookId?: number;
}

/**
 * Registers an endpoint, or changes one's URL and kinds of events. Refused,
 * it comes back as posted, each field's error beside it and the focus on
 * the first field in error.
 */
export function WebhookFormPage(props: WebhookFormPageProps) {
  const { email, csrf, values, errors = {}, formError, urlHint, webhookId } = props;
  const focus = firstInError(WEBHOOK_FIELDS, errors);
  const editing = webhookId !== undefined;
  const back = editing ? `/dashboard/webhooks/${webhookId}` : ACCOUNT_PAGE;
  let first = true;
  return (
    <Layout
      title={editing ? "Change the endpoint" : "Register an endpoint"}
      signedIn={{ email, csrf }}
    >
      {formError && (
        <p class="error" role="alert">
          {formError}
        </p>
      )}
      <form
        method="post"
        action={editing ? `/dashboard/webhooks/${webhookId}` : "/dashboard/webhooks"}
        class="stacked"
      >
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <div>
          <label for="url">URL</label>
          <p class="hint" id="url-hint">
            {urlHint}
          </p>
          <FieldError id="url-error" errors={errors.url} />
          <input
            id="url"
            name="url"
            type="url"
            inputmode="url"
            autocomplete="off"
            spellcheck={false}
            required
            value={values.url}
            autofocus={focus === "url"}
            aria-invalid={errors.url ? "true" : undefined}
            aria-describedby={describedBy("url-hint", errors.url && "url-error")}
          />
        </div>
        <Choices
          name="types"
          legend="Events to send"
          hint="At most 7 choices; a family counts as one. Changes apply to events after the change."
          errors={errors.types}
        >
          {EVENT_GROUPS.map(({ family, kinds }) => (
            <div class="choice-group">
              {[family, ...kinds].map((selector) => {
                const autofocus = focus === "types" && first;
                first = false;
                return (
                  <Choice
                    type="checkbox"
                    name="types"
                    value={selector}
                    checked={values.types.includes(selector)}
                    autofocus={autofocus}
                    label={
                      selector === family ? (
                        <>
                          {FAMILY_NAMES[family]} (<code>{family}</code>)
                        </>
                      ) : (
                        <code>{selector}</code>
                      )
                    }
                  />
                );
              })}
            </div>
          ))}
        </Choices>
        <FormActions submit={editing ? "Save changes" : "Register the endpoint"} back={back} />
      </form>
    </Layout>
  );
}
