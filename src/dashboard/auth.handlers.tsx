import type { MiddlewareHandler } from "hono";
import { findAccountByEmail, hasPassword, insertAccount } from "../accounts/accounts.queries.ts";
import { acceptInvite, accountOfInvite, INVITE_PATH } from "../accounts/invites.ts";
import { clientAddress } from "../api/client-address.ts";
import { atPrimary } from "../db/database.ts";
import type { Budget } from "../rate-limit/rate-limit-types.ts";
import {
  type CredentialsMode,
  hashPassword,
  parseCredentials,
  parseNewPassword,
  verifyAgainstDecoy,
  verifyPassword,
} from "./credentials.ts";
import { formToken } from "./csrf.ts";
import {
  type CredentialsFormState,
  CredentialsPage,
  InvitePage,
} from "./pages/credential-pages.tsx";
import { ACCOUNT_PAGE, messageResponse } from "./pages/layout.tsx";
import {
  type DashboardContext,
  type DashboardEnv,
  endSession,
  readSession,
  startSession,
} from "./session.ts";

const EXPIRED_FORM = "This form had expired. Please try again.";

/**
 * Sign-in attempts are counted per email and address together, so failures
 * from one address never lock out the owner signing in from another, and per
 * address, so one address cannot spray many accounts. Each sign-up costs a
 * password hash and makes an account, so it is counted per address by the hour.
 */
const SIGN_IN_PER_EMAIL_AND_ADDRESS: Budget = { limit: 10, per: "minute" };
const SIGN_IN_PER_ADDRESS: Budget = { limit: 30, per: "minute" };
const SIGN_UP_PER_ADDRESS: Budget = { limit: 10, per: "hour" };

async function renderForm(
  c: DashboardContext,
  mode: CredentialsMode,
  state: CredentialsFormState,
  status: 200 | 400 | 403 | 409 | 422 | 429 = 200,
) {
  const csrf = await formToken(c, "pre-session");
  return c.html(<CredentialsPage mode={mode} csrf={csrf} {...state} />, status);
}

function postedEmail(c: DashboardContext): string {
  const { email } = c.get("form");
  return typeof email === "string" ? email : "";
}

/** Counts one attempt against each budget: the form again with 429 if any refuses it. */
async function throttle(
  c: DashboardContext,
  mode: CredentialsMode,
  budgets: [name: string, budget: Budget][],
): Promise<Response | undefined> {
  const { limiter } = c.get("services");
  const hits = await Promise.all(budgets.map(([name, budget]) => limiter.hitNamed(name, budget)));
  const refused = hits.filter((hit) => hit.outcome !== "allowed");
  if (refused.length === 0) return undefined;
  const seconds = Math.max(1, ...refused.map((hit) => hit.retryAfter ?? 60));
  c.header("Retry-After", String(seconds));
  const form = `Too many attempts. Wait ${seconds} seconds, then try again.`;
  return renderForm(c, mode, { email: postedEmail(c), errors: { form } }, 429);
}

async function signInAs(c: DashboardContext, accountId: number) {
  await startSession(c, c.get("services").db, accountId);
  return c.redirect(ACCOUNT_PAGE, 303);
}

/** A sign-up or sign-in post whose CSRF token is missing or wrong: its form again, as posted. */
export function staleCredentialsForm(mode: CredentialsMode) {
  return (c: DashboardContext) =>
    renderForm(c, mode, { email: postedEmail(c), errors: { form: EXPIRED_FORM } }, 403);
}

/**
 * Pages for signed-in people: anyone else is sent to sign in. A session
 * that ran out gets the sign-in page, in place of the page asked for, saying
 * so. Only a request with that session's cookie gets it, so no link can make
 * the dashboard say it; a post it refuses keeps a 4xx status.
 */
export function requireSession(): MiddlewareHandler<DashboardEnv> {
  return async function requireSession(c, next) {
    const { db } = c.get("services");
    const lookup = await readSession(c, db);
    if (lookup.state === "valid") {
      c.set("session", lookup.session);
      c.set("account", lookup.account);
      if (lookup.bookmark !== null) c.get("reads").notBefore(lookup.bookmark);
      return next();
    }
    if (lookup.state === "absent") return c.redirect("/dashboard/sign-in", 303);
    await endSession(c, db, lookup.state === "expired" ? lookup.id : undefined);
    if (lookup.state !== "expired") return c.redirect("/dashboard/sign-in", 303);
    const notice = "Your session has expired. Please sign in again.";
    return renderForm(c, "sign-in", { notice }, c.req.method === "GET" ? 200 : 403);
  };
}

/** The sign-up or sign-in page (with a notice, where signing out lands); a signed-in browser goes on to its account. */
export function showCredentialsForm(mode: CredentialsMode, notice?: string) {
  return async (c: DashboardContext) => {
    const { state } = await readSession(c, c.get("services").db);
    if (state === "valid") return c.redirect(ACCOUNT_PAGE, 303);
    return renderForm(c, mode, { notice });
  };
}

/** Validation → throttle → create (on Free, but the operator's account) → session. */
export async function submitSignUpForm(c: DashboardContext) {
  const email = postedEmail(c);
  const parsed = parseCredentials("sign-up", c.get("form"));
  if (!parsed.ok) return renderForm(c, "sign-up", { email, errors: parsed.errors }, 422);
  const refused = await throttle(c, "sign-up", [
    [`signup-ip:${clientAddress(c)}`, SIGN_UP_PER_ADDRESS],
  ]);
  if (refused) return refused;
  const { db, config } = c.get("services");
  // Looked up first, so a taken address costs no password hash; the insert still refuses a race.
  const account =
    (await findAccountByEmail(db, parsed.email)) === undefined
      ? await insertAccount(db, {
          email: parsed.email,
          passwordHash: await hashPassword(parsed.password),
          operatorEmail: config.operatorEmail,
        })
      : undefined;
  if (!account) {
    const taken = "An account with this email address already exists. Sign in instead.";
    return renderForm(c, "sign-up", { email, errors: { email: taken } }, 409);
  }
  return signInAs(c, account.id);
}

/** Throttle → check the password (in the same time whether or not the account exists) → session. */
export async function submitSignInForm(c: DashboardContext) {
  const email = postedEmail(c);
  const parsed = parseCredentials("sign-in", c.get("form"));
  if (!parsed.ok) return renderForm(c, "sign-in", { email, errors: parsed.errors }, 422);
  const address = clientAddress(c);
  const refused = await throttle(c, "sign-in", [
    [`signin:${JSON.stringify([parsed.email, address])}`, SIGN_IN_PER_EMAIL_AND_ADDRESS],
    [`signin-ip:${address}`, SIGN_IN_PER_ADDRESS],
  ]);
  if (refused) return refused;
  const account = await findAccountByEmail(c.get("services").db, parsed.email);
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
  return signInAs(c, account.id);
}

/** Runs behind the session guard and its CSRF check: the session ends in D1, not only in the browser. */
export async function submitSignOutForm(c: DashboardContext) {
  await endSession(c, c.get("services").db, c.get("session").id);
  return c.redirect("/dashboard/signed-out", 303);
}

function invalidInvite(c: DashboardContext) {
  return messageResponse(
    c,
    404,
    "This link no longer works",
    "The invite link has been used already or has expired. Ask the person who sent it for a new one.",
    { href: "/dashboard/sign-in", text: "Sign in" },
  );
}

/** An invite's pages, while its link is unused and unexpired; any other link is not found. */
export function requireInvite(): MiddlewareHandler<DashboardEnv> {
  return async function requireInvite(c, next) {
    const token = c.req.param("token") ?? "";
    // At the primary: an invite made a moment ago may not have reached a replica.
    const account = await accountOfInvite(atPrimary(c.get("services").db), token, Date.now());
    if (!account) return invalidInvite(c);
    c.set("invited", account);
    await next();
  };
}

/** The invite's form; with an error when its CSRF token was missing or wrong (403) or its password refused (422). */
export async function renderInvite(
  c: DashboardContext,
  error?: string,
  status: 200 | 403 | 422 = 200,
) {
  const action = `${INVITE_PATH}${c.req.param("token") ?? ""}`;
  const csrf = await formToken(c, "pre-session");
  const email = c.get("invited").email;
  return c.html(<InvitePage csrf={csrf} email={email} action={action} error={error} />, status);
}

export function staleInviteForm(c: DashboardContext) {
  return renderInvite(c, EXPIRED_FORM, 403);
}

/** Password rules → set it and spend the invite → session. */
export async function acceptInviteForm(c: DashboardContext) {
  const parsed = parseNewPassword(c.get("form"));
  if (!parsed.ok) return renderInvite(c, parsed.error, 422);
  const token = c.req.param("token") ?? "";
  const hash = await hashPassword(parsed.password);
  const accepted = await acceptInvite(c.get("services").db, token, hash, Date.now());
  if (!accepted) return invalidInvite(c);
  return signInAs(c, accepted.id);
}
