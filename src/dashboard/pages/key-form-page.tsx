import { SCOPES, type Scope } from "../../scopes.ts";
import { CSRF_FIELD } from "../csrf.ts";
import { type FieldErrors, firstInError } from "../form-values.ts";
import {
  ACCESS_CHOICES,
  EXPIRY_CHOICES,
  KEY_FIELDS,
  type KeyField,
  type KeyFormValues,
  READ_SCOPES,
} from "../key-form.ts";
import { ChoiceList, Choices, describedBy, FieldError, FormActions } from "./form-fields.tsx";
import { ACCOUNT_PAGE, Layout } from "./layout.tsx";

/** What each scope lets a key do, in a person's words. */
const SCOPE_DETAILS: Record<Scope, string> = {
  "pets:read": "List and fetch animals, their photos and categories.",
  "pets:write": "Add, change and delete animals, their photos and categories.",
  "orders:read": "List and fetch this account's orders.",
  "orders:write": "Place, complete and cancel orders.",
  "events:read": "Read the event feed (order events only with orders:read too).",
  "webhooks:read": "List webhook endpoints and their deliveries.",
  "webhooks:write":
    "Register, change, test and delete webhook endpoints (order events need orders:read too).",
};

const ACCESS_LABELS: Record<(typeof ACCESS_CHOICES)[number], { label: string; detail: string }> = {
  full: { label: "Full access", detail: `All ${SCOPES.length} scopes: everything the API does.` },
  read: {
    label: "Read only",
    detail: `${READ_SCOPES.join(", ")}: reads animals, orders, events and webhooks; changes nothing.`,
  },
  chosen: { label: "Only the scopes ticked below", detail: "Give just what your client needs." },
};

const EXPIRY_LABELS: Record<(typeof EXPIRY_CHOICES)[number], string> = {
  "7": "7 days",
  "30": "30 days",
  "90": "90 days",
  "365": "1 year",
  never: "Never",
};

/**
 * The new-key form: access (a preset or each scope), a life, and the
 * addresses that may use it. Refused, it comes back as posted, with each
 * field's error beside it and the focus on the first field in error.
 */
export function KeyFormPage(props: {
  email: string;
  csrf: string;
  values: KeyFormValues;
  errors?: FieldErrors<KeyField>;
  /** A refusal of the whole form (the plan's cap of working keys). */
  formError?: string;
}) {
  const { email, csrf, values, errors = {}, formError } = props;
  const focus = firstInError(KEY_FIELDS, errors);
  return (
    <Layout title="Create a key" signedIn={{ email, csrf }}>
      {formError && (
        <p class="error" role="alert">
          {formError}
        </p>
      )}
      <form method="post" action="/dashboard/keys" class="stacked">
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <Choices name="access" legend="What the key may do" errors={errors.access}>
          <ChoiceList
            type="radio"
            name="access"
            options={ACCESS_CHOICES}
            checked={(access) => values.access === access}
            focus={focus === "access"}
            label={(access) => ACCESS_LABELS[access].label}
            detail={(access) => ACCESS_LABELS[access].detail}
          />
        </Choices>
        <Choices
          name="scope"
          legend="Scopes"
          hint='Used only with "Only the scopes ticked below". A write scope does not include its read scope.'
          errors={errors.scope}
        >
          <ChoiceList
            type="checkbox"
            name="scope"
            options={SCOPES}
            checked={(scope) => values.scopes.includes(scope)}
            focus={focus === "scope"}
            label={(scope) => <code>{scope}</code>}
            detail={(scope) => SCOPE_DETAILS[scope]}
          />
        </Choices>
        <Choices
          name="expires"
          legend="Expires after"
          hint="From then on the key is refused everywhere, as if revoked."
          errors={errors.expires}
        >
          <div class="inline-choices">
            <ChoiceList
              type="radio"
              name="expires"
              options={EXPIRY_CHOICES}
              checked={(expiry) => values.expires === expiry}
              focus={focus === "expires"}
              label={(expiry) => EXPIRY_LABELS[expiry]}
            />
          </div>
        </Choices>
        <div>
          <label for="ranges">Allowed addresses (optional)</label>
          <p class="hint" id="ranges-hint">
            Up to 10 IPv4 or IPv6 addresses or CIDR ranges, one per line, such as{" "}
            <code>203.0.113.0/24</code> or <code>2001:db8::/32</code>. Requests from anywhere else
            are refused. Leave empty to allow any address.
          </p>
          <FieldError id="ranges-error" errors={errors.ranges} />
          <textarea
            id="ranges"
            name="ranges"
            rows={4}
            spellcheck={false}
            autocomplete="off"
            autofocus={focus === "ranges"}
            aria-invalid={errors.ranges ? "true" : undefined}
            aria-describedby={describedBy("ranges-hint", errors.ranges && "ranges-error")}
          >
            {values.ranges}
          </textarea>
        </div>
        <p class="hint">
          Access, expiry and addresses are fixed once the key is made; rolling the key keeps them.
        </p>
        <FormActions submit="Create the key" back={ACCOUNT_PAGE} />
      </form>
    </Layout>
  );
}
