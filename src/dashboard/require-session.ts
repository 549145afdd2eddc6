import type { MiddlewareHandler } from "hono";
import { CSRF_FIELD, isValidCsrfToken } from "./csrf.ts";
import type { DashboardEnv } from "./dashboard-env.ts";
import { forbiddenFormPage } from "./message-responses.tsx";
import { endSession, readSession } from "./session.ts";
import { setSignedOutNotice } from "./signed-out-notice.ts";

/** Pages for signed-in people: anyone else is sent to sign in (told why, if their session ran out). */
export function requireSession(): MiddlewareHandler<DashboardEnv> {
  return async function requireSession(c, next) {
    const { db } = c.var.services;
    const lookup = await readSession(c, db);
    if (lookup.state === "valid") {
      c.set("session", lookup.session);
      c.set("account", lookup.account);
      return next();
    }
    if (lookup.state !== "absent") {
      await endSession(c, db, lookup.state === "expired" ? lookup.id : undefined);
    }
    if (lookup.state === "expired") setSignedOutNotice(c, "expired");
    return c.redirect("/dashboard/sign-in", 303);
  };
}

/** Every signed-in form post must carry the token derived from this session. */
export function requireCsrfToken(): MiddlewareHandler<DashboardEnv> {
  return async function requireCsrfToken(c, next) {
    const valid = await isValidCsrfToken(
      c.var.services.config.sessionSecret,
      c.get("session").id,
      c.get("form")[CSRF_FIELD],
    );
    if (!valid) return forbiddenFormPage(c);
    await next();
  };
}
