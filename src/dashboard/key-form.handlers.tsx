import * as changes from "../keys/key-changes.ts";
import { noticeAndRedirect } from "./account.handlers.tsx";
import { signedInAs } from "./csrf.ts";
import type { FieldErrors } from "./form-values.ts";
import { EMPTY_KEY_FORM, type KeyField, type KeyFormValues, parseKeyForm } from "./key-form.ts";
import { KeyFormPage } from "./pages/key-form-page.tsx";
import type { DashboardContext } from "./session.ts";

const capReached = (cap: number) =>
  `You already have ${cap} working keys, the most your plan allows. Revoke a key first, then make another.`;

async function renderKeyForm(
  c: DashboardContext,
  form: { values: KeyFormValues; errors?: FieldErrors<KeyField>; formError?: string },
  status: 200 | 400 | 409 = 200,
) {
  return c.html(<KeyFormPage {...(await signedInAs(c))} {...form} />, status);
}

export function showKeyForm(c: DashboardContext) {
  return renderKeyForm(c, { values: EMPTY_KEY_FORM });
}

/**
 * Makes the key through the one writer of keys, with what the form asked
 * for; the key itself reaches the account page once, as a notice.
 */
export async function submitKeyForm(c: DashboardContext) {
  const parsed = parseKeyForm(c.get("form"));
  if (!parsed.ok) return renderKeyForm(c, parsed, 400);
  const created = await changes.createKey(c.get("services"), c.get("account"), parsed.restrictions);
  if (!created.ok) {
    return renderKeyForm(c, { values: parsed.values, formError: capReached(created.cap) }, 409);
  }
  return noticeAndRedirect(c, { kind: "key-created", key: created.key });
}
