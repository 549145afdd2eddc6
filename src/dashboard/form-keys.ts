import type { Claim } from "../changes/outcomes.ts";
import { randomToken, toBase64 } from "../utils/base64url.ts";
import { sha256 } from "../utils/sha256.ts";
import { textOf } from "./form-values.ts";
import type { DashboardContext } from "./session.ts";

/** The field a form that makes something carries: a token drawn with the page, its change's idempotency key. */
export const FORM_KEY_FIELD = "formKey";

/** A fresh one-time token for a form that makes something (its change's idempotency key). */
export const newFormKey = (): string => randomToken(18);

/**
 * The key space of a signed-in account's forms among the idempotency
 * records. An API key's space is its hash (64 hex digits); this one holds a
 * colon, so no key's space is ever the same, and a form never replays an
 * API request or the other way round.
 */
const accountKeySpace = (accountId: number): string => `account:${accountId}`;

/**
 * The claim of the form's change: its one-time token, under the account's
 * own key space, on this operation, with the fingerprint of what it asks
 * (so the same token sent again with other values is refused, as an API key
 * reused with another body is). Undefined when the form carries no token
 * of the API's form (1–255 printable ASCII characters).
 */
export async function formClaim(
  c: DashboardContext,
  operation: string,
  asked: unknown,
): Promise<Claim | undefined> {
  const idempotencyKey = textOf(c.get("form"), FORM_KEY_FIELD);
  if (!/^[\x20-\x7e]{1,255}$/.test(idempotencyKey)) return undefined;
  return {
    apiKeyHash: accountKeySpace(c.get("account").id),
    idempotencyKey,
    operation,
    requestHash: toBase64(await sha256(JSON.stringify(asked))),
    now: Date.now(),
  };
}
