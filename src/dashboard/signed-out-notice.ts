import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { cookieOptions } from "./session.ts";

/**
 * What the sign-in page says after a session ended. There is no session left
 * to keep it with, so a short-lived cookie carries which of these it is: the
 * address cannot, or anyone could link to a page that says it.
 */
const SIGNED_OUT_NOTICES = {
  "signed-out": "You have signed out.",
  expired: "Your session has expired. Please sign in again.",
} as const;

export type SignedOutNotice = keyof typeof SIGNED_OUT_NOTICES;

const FLASH_COOKIE = "ps_flash";

export function setSignedOutNotice(c: Context, notice: SignedOutNotice): void {
  setCookie(c, FLASH_COOKIE, notice, { ...cookieOptions, maxAge: 5 * 60 });
}

/** The sentence to show once, if a notice waits; the cookie is cleared either way. */
export function takeSignedOutNotice(c: Context): string | undefined {
  const value = getCookie(c, FLASH_COOKIE);
  if (value === undefined) return undefined;
  deleteCookie(c, FLASH_COOKIE, cookieOptions);
  return Object.hasOwn(SIGNED_OUT_NOTICES, value)
    ? SIGNED_OUT_NOTICES[value as SignedOutNotice]
    : undefined;
}
