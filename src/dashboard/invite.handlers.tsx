import type { Context } from "hono";
import { acceptInvite, accountOfInvite, INVITE_PATH } from "../accounts/invites.ts";
import { parseNewPassword } from "./credential-forms.ts";
import {
  CSRF_FIELD,
  csrfToken,
  isValidCsrfToken,
  preSessionNonce,
  readPreSessionNonce,
} from "./csrf.ts";
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

async function renderInvite(
  c: DashboardContext,
  email: string,
  error?: string,
  status: 200 | 403 | 422 = 200,
) {
  const token = c.req.param("token") ?? "";
  const csrf = await csrfToken(c.var.services.config.sessionSecret, preSessionNonce(c));
  return c.html(
    <InvitePage csrf={csrf} email={email} action={`${INVITE_PATH}${token}`} error={error} />,
    status,
  );
}

export async function showInvite(c: DashboardContext) {
  const account = await accountOfInvite(c.var.services.db, c.req.param("token") ?? "", Date.now());
  if (!account) return invalidInvite(c);
  return renderInvite(c, account.email);
}

/** CSRF → the invite is still good → password rules → set it and spend the invite → session. */
export async function acceptInviteForm(c: DashboardContext) {
  const { db } = c.var.services;
  const token = c.req.param("token") ?? "";
  const account = await accountOfInvite(db, token, Date.now());
  if (!account) return invalidInvite(c);
  const form = c.get("form");
  const nonce = readPreSessionNonce(c);
  if (
    !nonce ||
    !(await isValidCsrfToken(c.var.services.config.sessionSecret, nonce, form[CSRF_FIELD]))
  ) {
    return renderInvite(c, account.email, "This form had expired. Please try again.", 403);
  }
  const parsed = parseNewPassword(form);
  if (!parsed.ok) return renderInvite(c, account.email, parsed.error, 422);
  const accepted = await acceptInvite(db, token, await hashPassword(parsed.password), Date.now());
  if (!accepted) return invalidInvite(c);
  await startSession(c, db, accepted.id);
  return c.redirect("/dashboard/account", 303);
}
