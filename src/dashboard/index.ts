import { Hono } from "hono";
import { csrf } from "hono/csrf";
import { confirmRevoke, createKey, revokeKey, rollKey, showAccount } from "./account.handlers.tsx";
import {
  showSignedOut,
  showSignIn,
  showSignUp,
  signIn,
  signOut,
  signUp,
  staleCredentialsForm,
} from "./auth.handlers.tsx";
import { COPY_KEY_SCRIPT_ROUTE, serveCopyKeyScript } from "./copy-key-script.ts";
import { type FormRefusal, requireFormToken } from "./csrf.ts";
import type { DashboardEnv } from "./dashboard-env.ts";
import { handleDashboardError } from "./dashboard-errors.tsx";
import { dashboardHeaders } from "./dashboard-headers.ts";
import { formBody } from "./form-body.ts";
import {
  acceptInviteForm,
  requireInvite,
  showInvite,
  staleInviteForm,
} from "./invite.handlers.tsx";
import { forbiddenFormPage, notFoundPage } from "./message-responses.tsx";
import { requireSession } from "./require-session.ts";
import { sendWebhookTest, setWebhookEnabled } from "./webhook.handlers.ts";

/**
 * The account dashboard: server-rendered HTML forms that need no script (one
 * small script adds a copy button) and no API key. Every successful post
 * answers 303 to a page, so reloading never repeats it. Every post passes an
 * Origin check (hono/csrf) and carries a CSRF token (requireFormToken), tied
 * to the session on signed-in forms and to a pre-session nonce before.
 */
export function dashboardRoutes(): Hono<DashboardEnv> {
  const dashboard = new Hono<DashboardEnv>();
  dashboard.use(dashboardHeaders(), csrf());
  dashboard.post("*", formBody());

  dashboard.get("/", (c) => c.redirect("/dashboard/account", 303));
  dashboard.get(COPY_KEY_SCRIPT_ROUTE, serveCopyKeyScript);
  dashboard.get("/sign-up", showSignUp);
  const preSession = (refuse: FormRefusal) => requireFormToken("pre-session", refuse);
  dashboard.post("/sign-up", preSession(staleCredentialsForm("sign-up")), signUp);
  dashboard.get("/sign-in", showSignIn);
  dashboard.post("/sign-in", preSession(staleCredentialsForm("sign-in")), signIn);
  dashboard.get("/signed-out", showSignedOut);
  dashboard.get("/invite/:token", requireInvite(), showInvite);
  dashboard.post("/invite/:token", requireInvite(), preSession(staleInviteForm), acceptInviteForm);

  const signedIn = [requireSession(), requireFormToken("session", forbiddenFormPage)] as const;
  dashboard.get("/account", requireSession(), showAccount);
  dashboard.post("/sign-out", ...signedIn, signOut);
  dashboard.post("/keys", ...signedIn, createKey);
  dashboard.get("/keys/:hash/revoke", requireSession(), confirmRevoke);
  dashboard.post("/keys/:hash/revoke", ...signedIn, revokeKey);
  dashboard.post("/keys/:hash/roll", ...signedIn, rollKey);
  dashboard.post("/webhooks/:id/pause", ...signedIn, setWebhookEnabled(false));
  dashboard.post("/webhooks/:id/resume", ...signedIn, setWebhookEnabled(true));
  dashboard.post("/webhooks/:id/test", ...signedIn, sendWebhookTest);

  dashboard.all("*", notFoundPage);
  dashboard.onError(handleDashboardError);
  return dashboard;
}
