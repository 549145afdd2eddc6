import type { MiddlewareHandler } from "hono";
import { sessionExpiredPage } from "./auth.handlers.tsx";
import type { DashboardEnv } from "./dashboard-env.ts";
import { endSession, readSession } from "./session.ts";

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
    if (lookup.state === "absent") return c.redirect("/dashboard/sign-in", 303);
    await endSession(c, db, lookup.state === "expired" ? lookup.id : undefined);
    if (lookup.state === "expired") return sessionExpiredPage(c);
    return c.redirect("/dashboard/sign-in", 303);
  };
}
