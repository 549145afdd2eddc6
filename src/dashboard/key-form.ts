import { type KeyRestrictions, KeyRestrictionsSchema } from "../keys/key-restrictions.ts";
import { SCOPES, type Scope } from "../scopes.ts";
import { type FieldErrors, type PostedForm, textOf, textsOf } from "./form-values.ts";

/** "Read only": every scope that reads and none that changes anything. */
export const READ_SCOPES = SCOPES.filter((scope) => scope.endsWith(":read"));

export const ACCESS_CHOICES = ["full", "read", "chosen"] as const;
type Access = (typeof ACCESS_CHOICES)[number];

/** How long a new key may live: its life in days, or never ending. */
export const EXPIRY_CHOICES = ["7", "30", "90", "365", "never"] as const;
type Expiry = (typeof EXPIRY_CHOICES)[number];

/** The key form's fields, in the order the page shows them. */
export const KEY_FIELDS = ["access", "scope", "expires", "ranges"] as const;
export type KeyField = (typeof KEY_FIELDS)[number];

/** The form as posted, to show again when it is refused. */
export interface KeyFormValues {
  access: Access;
  scopes: string[];
  expires: Expiry;
  ranges: string;
}

export const EMPTY_KEY_FORM: KeyFormValues = {
  access: "full",
  scopes: [],
  expires: "never",
  ranges: "",
};

const DAY_SECONDS = 24 * 60 * 60;

const isAccess = (value: string): value is Access => ACCESS_CHOICES.some((item) => item === value);
const isExpiry = (value: string): value is Expiry => EXPIRY_CHOICES.some((item) => item === value);

/** The lines of the ranges field that say something: one range per line (commas also separate). */
function rangesOf(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

function scopesOf(values: KeyFormValues): Scope[] | undefined {
  if (values.access === "full") return undefined;
  if (values.access === "read") return [...READ_SCOPES];
  return SCOPES.filter((scope) => values.scopes.includes(scope));
}

/**
 * What the new-key form asks for, as the restrictions every way of making a
 * key takes (`KeyRestrictionsSchema`). A form without the fields (the
 * shortest post) makes a key with full access that never expires, usable
 * from anywhere, as the API does without them.
 */
export function parseKeyForm(
  form: PostedForm,
):
  | { ok: true; restrictions: KeyRestrictions; values: KeyFormValues }
  | { ok: false; errors: FieldErrors<KeyField>; values: KeyFormValues } {
  const access = textOf(form, "access") || "full";
  const expires = textOf(form, "expires") || "never";
  const values: KeyFormValues = {
    access: isAccess(access) ? access : "full",
    scopes: textsOf(form, "scope"),
    expires: isExpiry(expires) ? expires : "never",
    ranges: textOf(form, "ranges"),
  };
  const errors: FieldErrors<KeyField> = {};
  if (!isAccess(access)) errors.access = ["Choose full access, read only, or the scopes to give."];
  if (values.access === "chosen" && values.scopes.length === 0) {
    errors.scope = ["Tick at least one scope, or choose full access or read only."];
  } else if (values.access !== "chosen" && values.scopes.length > 0) {
    errors.scope = [
      'You ticked scopes: choose "Only the scopes ticked below" to give just those, or untick them.',
    ];
  }
  if (!isExpiry(expires)) errors.expires = ["Choose 7, 30 or 90 days, 1 year, or never."];
  const ranges = rangesOf(values.ranges);
  const parsed = KeyRestrictionsSchema.safeParse({
    scopes: scopesOf(values),
    expiresInSeconds: values.expires === "never" ? undefined : Number(values.expires) * DAY_SECONDS,
    allowedRanges: ranges.length > 0 ? ranges : undefined,
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = fieldOf(issue.path[0]);
      // Each bad range's message names the range itself.
      const message = /[.?!]$/.test(issue.message) ? issue.message : `${issue.message}.`;
      errors[field] = [...(errors[field] ?? []), message];
    }
  }
  if (!parsed.success || Object.keys(errors).length > 0) return { ok: false, errors, values };
  return { ok: true, restrictions: parsed.data, values };
}

function fieldOf(path: PropertyKey | undefined): KeyField {
  if (path === "scopes") return "scope";
  if (path === "expiresInSeconds") return "expires";
  return "ranges";
}
