import type { MiddlewareHandler } from "hono";
import { findAccountById } from "../accounts/accounts.queries.ts";
import { CSRF_FIELD, isValidCsrfToken } from "./csrf.ts";
import type { DashboardEnv } from "./dashboard-env.ts";
import { forbiddenFormPage } from "./message-responses.tsx";
import { endSession, readSession } from "./session.ts";

/** Pages for signed-in people: anyone else is sent to sign in (told why, if their session ran out). */
export function requireSession(): MiddlewareHandler<DashboardEnv> {
  return async function requireSession(c, next) {
    const lookup = await readSession(c, c.env.SESSION_SECRET);
    const account =
      lookup.state === "valid"
        ? await findAccountById(c.var.services.db, lookup.session.accountId)
        : undefined;
    if (lookup.state !== "valid" || !account) {
      if (lookup.state !== "absent") endSession(c);
      const target =
        lookup.state === "expired" ? "/dashboard/sign-in?expired=1" : "/dashboard/sign-in";
      return c.redirect(target, 303);
    }
    c.set("session", lookup.session);
    c.set("account", account);
    await next();
  };
}

/** Every signed-in form post must carry the token derived from this session's nonce. */
export function requireCsrfToken(): MiddlewareHandler<DashboardEnv> {
  return async function requireCsrfToken(c, next) {
    const form = await c.req.parseBody();
    const valid = await isValidCsrfToken(
      c.env.SESSION_SECRET,
      c.get("session").nonce,
      form[CSRF_FIELD],
    );
    if (!valid) return forbiddenFormPage(c);
    await next();
  };
}
