import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { randomToken } from "../utils/base64url.ts";
import type { DashboardEnv } from "./dashboard-env.ts";
import { sign, verify } from "./hmac.ts";
import { cookieOptions, SESSION_TTL_MS } from "./session.ts";

type DashboardContext = Context<DashboardEnv>;

/** Form field every dashboard form carries. */
export const CSRF_FIELD = "csrf";
/** Before sign-in there is no session to tie tokens to, so a random nonce in a cookie stands in. */
const PRE_SESSION_COOKIE = "ps_csrf";
const PURPOSE = "csrf";

/**
 * What a form's token is tied to: the signed-in session (the route requires
 * one), or the pre-session nonce (sign-up, sign-in, an invite).
 */
type FormTokenTie = "session" | "pre-session";

/** What a route answers a form post whose token is missing or wrong. */
export type FormRefusal = (c: DashboardContext) => Response | Promise<Response>;

/** The one place the dashboard reads its secret. */
function sessionSecret(c: DashboardContext): string | undefined {
  return c.var.services.config.sessionSecret;
}

/**
 * Synchroniser tokens without storage: a token is the HMAC of what the
 * browser's HttpOnly cookie names (its session's id, or the pre-session
 * nonce), so another site can neither read nor forge it. Sets the
 * pre-session cookie on first sight, so the forms before sign-in can carry one.
 */
export function formToken(c: DashboardContext, tie: FormTokenTie): Promise<string> {
  const nonce = tie === "session" ? c.get("session").id : preSessionNonce(c);
  return sign(sessionSecret(c), PURPOSE, nonce);
}

/**
 * Every dashboard form post's CSRF check, behind hono/csrf's Origin check:
 * a missing or wrong token gets the route's own refusal, and the handler
 * never sees the form.
 */
export function requireFormToken(
  tie: FormTokenTie,
  refuse: FormRefusal,
): MiddlewareHandler<DashboardEnv> {
  return async function requireFormToken(c, next) {
    const nonce = tie === "session" ? c.get("session").id : readPreSessionNonce(c);
    const token = c.get("form")[CSRF_FIELD];
    const valid =
      nonce !== undefined &&
      typeof token === "string" &&
      token.length > 0 &&
      token.length <= 100 &&
      (await verify(sessionSecret(c), PURPOSE, nonce, token));
    if (!valid) return refuse(c);
    await next();
  };
}

function preSessionNonce(c: DashboardContext): string {
  const existing = readPreSessionNonce(c);
  if (existing) return existing;
  const nonce = randomToken(18);
  setCookie(c, PRE_SESSION_COOKIE, nonce, { ...cookieOptions, maxAge: SESSION_TTL_MS / 1000 });
  return nonce;
}

function readPreSessionNonce(c: DashboardContext): string | undefined {
  const nonce = getCookie(c, PRE_SESSION_COOKIE);
  return nonce && /^[\w-]{1,64}$/.test(nonce) ? nonce : undefined;
}
