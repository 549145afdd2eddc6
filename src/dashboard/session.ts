import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { randomToken } from "../utils/base64url.ts";
import { sign, verify } from "./hmac.ts";

export const SESSION_COOKIE = "ps_session";
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const PURPOSE = "session";

/** A signed-in browser: who, until when, and a random nonce its CSRF tokens derive from. */
export interface Session {
  accountId: number;
  expiresAt: number;
  nonce: string;
}

export type SessionLookup =
  | { state: "valid"; session: Session }
  | { state: "expired" }
  | { state: "absent" };

export const cookieOptions = {
  path: "/dashboard",
  httpOnly: true,
  secure: true,
  sameSite: "Lax",
} as const;

function payloadOf(session: Session): string {
  return `${session.accountId}.${session.expiresAt}.${session.nonce}`;
}

/** Signs the browser in: `<account>.<expires ms>.<nonce>.<HMAC-SHA256>` in an HttpOnly cookie. */
export async function startSession(c: Context, secret: string | undefined, accountId: number) {
  const session: Session = {
    accountId,
    expiresAt: Date.now() + SESSION_TTL_MS,
    nonce: randomToken(18),
  };
  const payload = payloadOf(session);
  const signature = await sign(secret, PURPOSE, payload);
  setCookie(c, SESSION_COOKIE, `${payload}.${signature}`, {
    ...cookieOptions,
    maxAge: SESSION_TTL_MS / 1000,
  });
  return session;
}

export function endSession(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, cookieOptions);
}

/** The session in the request's cookie; the expiry inside the signed value counts, not the cookie's. */
export async function readSession(c: Context, secret: string | undefined): Promise<SessionLookup> {
  const value = getCookie(c, SESSION_COOKIE);
  const match = value ? /^(\d{1,15})\.(\d{1,15})\.([\w-]{1,64})\.([\w-]{1,64})$/.exec(value) : null;
  if (!match) return { state: "absent" };
  const [, accountId = "", expiresAt = "", nonce = "", signature = ""] = match;
  const session: Session = { accountId: Number(accountId), expiresAt: Number(expiresAt), nonce };
  if (!(await verify(secret, PURPOSE, payloadOf(session), signature))) return { state: "absent" };
  if (session.expiresAt <= Date.now()) return { state: "expired" };
  return { state: "valid", session };
}
