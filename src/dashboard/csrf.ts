import type { MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { fromBase64Url, randomToken, toBase64Url } from "../utils/base64url.ts";
import { utf8Encoder } from "../utils/utf8.ts";
import { cookieOptions, type DashboardContext, type DashboardEnv } from "./session.ts";

/** Form field every dashboard form carries. */
export const CSRF_FIELD = "csrf";
/** Before sign-in there is no session to tie tokens to, so a random nonce in a cookie stands in. */
const PRE_SESSION_COOKIE = "ps_csrf";
// The resolved key, not its promise: a promise must not be shared across requests in workerd.
let cached: { secret: string; key: CryptoKey } | undefined;

/** What a form's token is tied to: the signed-in session, or the pre-session nonce (sign-up, sign-in, an invite). */
type FormTokenTie = "session" | "pre-session";

/** The dashboard's secret must be set (wrangler secret / .dev.vars); the configuration drops a short one. */
async function hmacKey(c: DashboardContext): Promise<CryptoKey> {
  const secret = c.get("services").config.sessionSecret;
  if (!secret) throw new Error("SESSION_SECRET is missing or shorter than 32 characters");
  if (cached?.secret !== secret) {
    const key = await crypto.subtle.importKey(
      "raw",
      utf8Encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    cached = { secret, key };
  }
  return cached.key;
}

/** The purpose is signed too, so a signature made for another use never passes for a form token. */
function signedText(nonce: string): Uint8Array {
  return utf8Encoder.encode(`csrf\n${nonce}`);
}

/**
 * Synchroniser tokens without storage: a token is the HMAC of what the
 * browser's HttpOnly cookie names (its session's id, or the pre-session
 * nonce), so another site can neither read nor forge it. Sets the
 * pre-session cookie on first sight, so the forms before sign-in can carry one.
 */
export async function formToken(c: DashboardContext, tie: FormTokenTie): Promise<string> {
  let nonce = tie === "session" ? c.get("session").id : readPreSessionNonce(c);
  if (nonce === undefined) {
    nonce = randomToken(18);
    setCookie(c, PRE_SESSION_COOKIE, nonce, cookieOptions);
  }
  const signature = await crypto.subtle.sign("HMAC", await hmacKey(c), signedText(nonce));
  return toBase64Url(new Uint8Array(signature));
}

/** Who a signed-in page is for, as its header shows them, and the token its forms carry. */
export async function signedInAs(c: DashboardContext): Promise<{ email: string; csrf: string }> {
  return { email: c.get("account").email, csrf: await formToken(c, "session") };
}

/**
 * Every dashboard form post's CSRF check, behind hono/csrf's Origin check:
 * a missing or wrong token gets the route's own refusal, and the handler
 * never sees the form. WebCrypto's verify compares in constant time.
 */
export function requireFormToken(
  tie: FormTokenTie,
  refuse: (c: DashboardContext) => Response | Promise<Response>,
): MiddlewareHandler<DashboardEnv> {
  return async function requireFormToken(c, next) {
    const nonce = tie === "session" ? c.get("session").id : readPreSessionNonce(c);
    const token = c.get("form")[CSRF_FIELD];
    const signature =
      typeof token === "string" && token.length > 0 && token.length <= 100
        ? fromBase64Url(token)
        : null;
    if (
      nonce === undefined ||
      !signature ||
      !(await crypto.subtle.verify("HMAC", await hmacKey(c), signature, signedText(nonce)))
    ) {
      return refuse(c);
    }
    await next();
  };
}

function readPreSessionNonce(c: DashboardContext): string | undefined {
  const nonce = getCookie(c, PRE_SESSION_COOKIE);
  return nonce && /^[\w-]{1,64}$/.test(nonce) ? nonce : undefined;
}
