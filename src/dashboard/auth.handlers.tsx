import type { Context } from "hono";
import { findAccountByEmail, hasPassword, insertAccount } from "../accounts/accounts.queries.ts";
import { clientAddress } from "../api/client-address.ts";
import { parseSignIn, parseSignUp } from "./credential-forms.ts";
import {
  CSRF_FIELD,
  csrfToken,
  isValidCsrfToken,
  preSessionNonce,
  readPreSessionNonce,
} from "./csrf.ts";
import type { DashboardEnv } from "./dashboard-env.ts";
import { type CredentialsFormState, CredentialsPage } from "./pages/credentials-page.tsx";
import { hashPassword, verifyAgainstDecoy, verifyPassword } from "./passwords.ts";
import { endSession, readSession, startSession } from "./session.ts";
import { setSignedOutNotice, takeSignedOutNotice } from "./signed-out-notice.ts";
import { type ThrottleVerdict, throttleSignIn, throttleSignUp } from "./throttle.ts";

type DashboardContext = Context<DashboardEnv>;
type Mode = "sign-up" | "sign-in";

const ACCOUNT_PAGE = "/dashboard/account";

async function renderForm(
  c: DashboardContext,
  mode: Mode,
  state: Omit<CredentialsFormState, "csrf">,
  status: 200 | 400 | 403 | 409 | 422 | 429 = 200,
) {
  const csrf = await csrfToken(c.var.services.config.sessionSecret, preSessionNonce(c));
  return c.html(<CredentialsPage mode={mode} csrf={csrf} {...state} />, status);
}

/** Both forms post a token tied to the pre-session cookie; a missing or wrong one is refused. */
async function hasValidFormToken(c: DashboardContext, form: Record<string, unknown>) {
  const nonce = readPreSessionNonce(c);
  return (
    nonce !== undefined &&
    isValidCsrfToken(c.var.services.config.sessionSecret, nonce, form[CSRF_FIELD])
  );
}

function throttled(c: DashboardContext, mode: Mode, email: string, verdict: ThrottleVerdict) {
  const seconds = verdict.allowed ? 60 : verdict.retryAfter;
  c.header("Retry-After", String(seconds));
  return renderForm(
    c,
    mode,
    { email, errors: { form: `Too many attempts. Wait ${seconds} seconds, then try again.` } },
    429,
  );
}

const staleForm = { form: "This form had expired. Please try again." };

async function signedIn(c: DashboardContext): Promise<boolean> {
  return (await readSession(c, c.var.services.db)).state === "valid";
}

export async function showSignUp(c: DashboardContext) {
  if (await signedIn(c)) return c.redirect(ACCOUNT_PAGE, 303);
  return renderForm(c, "sign-up", {});
}

/** Validation → throttle → create (on Free) → session. */
export async function signUp(c: DashboardContext) {
  const form = c.get("form");
  const email = typeof form.email === "string" ? form.email : "";
  if (!(await hasValidFormToken(c, form)))
    return renderForm(c, "sign-up", { email, errors: staleForm }, 403);
  const parsed = parseSignUp(form);
  if (!parsed.ok) return renderForm(c, "sign-up", { email, errors: parsed.errors }, 422);
  const verdict = await throttleSignUp(c.var.services.limiter, clientAddress(c));
  if (!verdict.allowed) return throttled(c, "sign-up", email, verdict);
  const taken = {
    email: "An account with this email address already exists. Sign in instead.",
  };
  const { db } = c.var.services;
  if (await findAccountByEmail(db, parsed.email)) {
    return renderForm(c, "sign-up", { email, errors: taken }, 409);
  }
  const account = await insertAccount(db, parsed.email, await hashPassword(parsed.password));
  if (!account) return renderForm(c, "sign-up", { email, errors: taken }, 409);
  await startSession(c, db, account.id);
  return c.redirect(ACCOUNT_PAGE, 303);
}

export async function showSignIn(c: DashboardContext) {
  if (await signedIn(c)) return c.redirect(ACCOUNT_PAGE, 303);
  return renderForm(c, "sign-in", { notice: takeSignedOutNotice(c) });
}

/** Throttle → check the password (in the same time whether or not the account exists) → session. */
export async function signIn(c: DashboardContext) {
  const form = c.get("form");
  const email = typeof form.email === "string" ? form.email : "";
  if (!(await hasValidFormToken(c, form)))
    return renderForm(c, "sign-in", { email, errors: staleForm }, 403);
  const parsed = parseSignIn(form);
  if (!parsed.ok) return renderForm(c, "sign-in", { email, errors: parsed.errors }, 422);
  const verdict = await throttleSignIn(c.var.services.limiter, parsed.email, clientAddress(c));
  if (!verdict.allowed) return throttled(c, "sign-in", email, verdict);
  const account = await findAccountByEmail(c.var.services.db, parsed.email);
  // An unknown email, or an account whose owner has not set a password yet,
  // takes as long to refuse as a wrong password, so neither can be told apart.
  const valid =
    account && hasPassword(account)
      ? await verifyPassword(parsed.password, account.passwordHash)
      : await verifyAgainstDecoy(parsed.password);
  if (!account || !valid) {
    const wrong = { password: "The email address or password is incorrect." };
    return renderForm(c, "sign-in", { email, errors: wrong }, 400);
  }
  await startSession(c, c.var.services.db, account.id);
  return c.redirect(ACCOUNT_PAGE, 303);
}

/** Runs behind the session guard and its CSRF check: the session ends in D1, not only in the browser. */
export async function signOut(c: DashboardContext) {
  await endSession(c, c.var.services.db, c.get("session").id);
  setSignedOutNotice(c, "signed-out");
  return c.redirect("/dashboard/sign-in", 303);
}
