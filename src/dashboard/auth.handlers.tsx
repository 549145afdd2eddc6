import type { Context } from "hono";
import { findAccountByEmail, hasPassword, insertAccount } from "../accounts/accounts.queries.ts";
import { clientAddress } from "../api/client-address.ts";
import { parseSignIn, parseSignUp } from "./credential-forms.ts";
import { formToken } from "./csrf.ts";
import type { DashboardEnv } from "./dashboard-env.ts";
import { type CredentialsFormState, CredentialsPage } from "./pages/credentials-page.tsx";
import { hashPassword, verifyAgainstDecoy, verifyPassword } from "./passwords.ts";
import { endSession, readSession, startSession } from "./session.ts";
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
  const csrf = await formToken(c, "pre-session");
  return c.html(<CredentialsPage mode={mode} csrf={csrf} {...state} />, status);
}

function postedEmail(c: DashboardContext): string {
  const { email } = c.get("form");
  return typeof email === "string" ? email : "";
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

/** A sign-up or sign-in post whose CSRF token is missing or wrong: its form again, as posted. */
export function staleCredentialsForm(mode: Mode) {
  return (c: DashboardContext) =>
    renderForm(
      c,
      mode,
      { email: postedEmail(c), errors: { form: "This form had expired. Please try again." } },
      403,
    );
}

/**
 * A session that ran out: the sign-in page, in place of the page asked for,
 * says so. Only a request with that session's cookie gets it, so no link can
 * make the dashboard say it; a post it refuses keeps a 4xx status.
 */
export function sessionExpiredPage(c: DashboardContext) {
  const notice = "Your session has expired. Please sign in again.";
  return renderForm(c, "sign-in", { notice }, c.req.method === "GET" ? 200 : 403);
}

async function signedIn(c: DashboardContext): Promise<boolean> {
  return (await readSession(c, c.var.services.db)).state === "valid";
}

export async function showSignUp(c: DashboardContext) {
  if (await signedIn(c)) return c.redirect(ACCOUNT_PAGE, 303);
  return renderForm(c, "sign-up", {});
}

/** Validation → throttle → create (on Free) → session. */
export async function signUp(c: DashboardContext) {
  const email = postedEmail(c);
  const parsed = parseSignUp(c.get("form"));
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
  return renderForm(c, "sign-in", {});
}

/** Where signing out lands: the sign-in page, saying so to a browser that is signed out. */
export async function showSignedOut(c: DashboardContext) {
  if (await signedIn(c)) return c.redirect(ACCOUNT_PAGE, 303);
  return renderForm(c, "sign-in", { notice: "You have signed out." });
}

/** Throttle → check the password (in the same time whether or not the account exists) → session. */
export async function signIn(c: DashboardContext) {
  const email = postedEmail(c);
  const parsed = parseSignIn(c.get("form"));
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
  return c.redirect("/dashboard/signed-out", 303);
}
