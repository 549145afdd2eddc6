import type { Context, MiddlewareHandler } from "hono";
import { acceptInvite, accountOfInvite, INVITE_PATH } from "../accounts/invites.ts";
import { parseNewPassword } from "./credential-forms.ts";
import { formToken } from "./csrf.ts";
import type { DashboardEnv } from "./dashboard-env.ts";
import { messageResponse } from "./message-responses.tsx";
import { InvitePage } from "./pages/invite-page.tsx";
import { hashPassword } from "./passwords.ts";
import { startSession } from "./session.ts";

type DashboardContext = Context<DashboardEnv>;

function invalidInvite(c: DashboardContext) {
  return messageResponse(c, 404, {
    title: "This link no longer works",
    message:
      "The invite link has been used already or has expired. Ask the person who sent it for a new one.",
    link: { href: "/dashboard/sign-in", text: "Sign in" },
  });
}

async function renderInvite(c: DashboardContext, error?: string, status: 200 | 403 | 422 = 200) {
  const token = c.req.param("token") ?? "";
  const csrf = await formToken(c, "pre-session");
  const page = (
    <InvitePage
      csrf={csrf}
      email={c.get("invited").email}
      action={`${INVITE_PATH}${token}`}
      error={error}
    />
  );
  return c.html(page, status);
}

/** An invite's pages, while its link is unused and unexpired; any other link is not found. */
export function requireInvite(): MiddlewareHandler<DashboardEnv> {
  return async function requireInvite(c, next) {
    const token = c.req.param("token") ?? "";
    const account = await accountOfInvite(c.var.services.db, token, Date.now());
    if (!account) return invalidInvite(c);
    c.set("invited", account);
    await next();
  };
}

export function showInvite(c: DashboardContext) {
  return renderInvite(c);
}

/** An invite form whose CSRF token is missing or wrong: the form again. */
export function staleInviteForm(c: DashboardContext) {
  return renderInvite(c, "This form had expired. Please try again.", 403);
}

/** Password rules → set it and spend the invite → session. */
export async function acceptInviteForm(c: DashboardContext) {
  const parsed = parseNewPassword(c.get("form"));
  if (!parsed.ok) return renderInvite(c, parsed.error, 422);
  const { db } = c.var.services;
  const token = c.req.param("token") ?? "";
  const accepted = await acceptInvite(db, token, await hashPassword(parsed.password), Date.now());
  if (!accepted) return invalidInvite(c);
  await startSession(c, db, accepted.id);
  return c.redirect("/dashboard/account", 303);
}
