import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { randomToken } from "../utils/base64url.ts";
import { sign, verify } from "./hmac.ts";
import { cookieOptions, SESSION_TTL_MS } from "./session.ts";

/** Form field every dashboard form carries. */
export const CSRF_FIELD = "csrf";
/** Before sign-in there is no session to tie tokens to, so a random nonce in a cookie stands in. */
const PRE_SESSION_COOKIE = "ps_csrf";
const PURPOSE = "csrf";

/**
 * Synchroniser tokens without storage: a token is the HMAC of what the
 * browser's HttpOnly cookie names (its session's id, or the pre-session
 * nonce), so another site can neither read nor forge it.
 */
export function csrfToken(secret: string | undefined, nonce: string): Promise<string> {
  return sign(secret, PURPOSE, nonce);
}

export function isValidCsrfToken(
  secret: string | undefined,
  nonce: string,
  token: unknown,
): Promise<boolean> {
  if (typeof token !== "string" || token.length === 0 || token.length > 100) {
    return Promise.resolve(false);
  }
  return verify(secret, PURPOSE, nonce, token);
}

/** The pre-session nonce, set on first sight so the sign-in and sign-up forms can carry a token. */
export function preSessionNonce(c: Context): string {
  const existing = readPreSessionNonce(c);
  if (existing) return existing;
  const nonce = randomToken(18);
  setCookie(c, PRE_SESSION_COOKIE, nonce, { ...cookieOptions, maxAge: SESSION_TTL_MS / 1000 });
  return nonce;
}

export function readPreSessionNonce(c: Context): string | undefined {
  const nonce = getCookie(c, PRE_SESSION_COOKIE);
  return nonce && /^[\w-]{1,64}$/.test(nonce) ? nonce : undefined;
}
