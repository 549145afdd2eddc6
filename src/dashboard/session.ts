import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Account } from "../accounts/accounts.queries.ts";
import { DASHBOARD_PATH } from "../api/public-paths.ts";
import type { AppEnv } from "../context.ts";
import { atPrimary, type Database } from "../db/database.ts";
import { RequestSession } from "../db/request-session.ts";
import { describeError, log } from "../logging.ts";
import { isSecretToken, newSecretToken } from "../utils/base64url.ts";
import { sha256Hex } from "../utils/sha256.ts";
import type { PostedForm } from "./form-values.ts";
import {
  deleteSession,
  findSession,
  insertSession,
  keepSessionBookmark,
} from "./sessions.queries.ts";

const SESSION_COOKIE = "ps_session";
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const cookieOptions = {
  path: DASHBOARD_PATH,
  httpOnly: true,
  secure: true,
  sameSite: "Lax",
  maxAge: SESSION_TTL_MS / 1000,
} as const;

/** A signed-in browser, as the request that carries its cookie knows it. */
export interface Session {
  /** SHA-256 of the cookie's token: the session's name in D1, and what its CSRF tokens derive from. */
  id: string;
  /** The cookie's token itself, which D1 never holds: the key to this session's notices derives from it. */
  token: string;
}

/** The app's bindings plus what the dashboard's middleware finds out. */
export interface DashboardEnv {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & {
    form: PostedForm;
    session: Session;
    account: Account;
    /** The account whose invite the address names. */
    invited: Account;
    /** This request's D1 session (see `dashboardReads`). */
    reads: RequestSession;
  };
}

export type DashboardContext = Context<DashboardEnv>;

/** Signs the browser in with a fresh token, ending the session its cookie named before, if any. */
export async function startSession(c: Context, db: Database, accountId: number): Promise<void> {
  const previous = getCookie(c, SESSION_COOKIE);
  const token = newSecretToken();
  const now = Date.now();
  await insertSession(
    db,
    {
      tokenHash: await sha256Hex(token),
      accountId,
      createdAt: new Date(now),
      expiresAt: new Date(now + SESSION_TTL_MS),
    },
    previous && isSecretToken(previous) ? await sha256Hex(previous) : undefined,
  );
  setCookie(c, SESSION_COOKIE, token, cookieOptions);
}

/**
 * The session the request's cookie names; its end in D1 counts, not the
 * cookie's, read at the primary, so a session signed out is over
 * everywhere at once. "unknown": a cookie that names no session (signed
 * out, removed, or never made here). A valid session's pages read no older
 * than its newest change (`bookmark`).
 */
export async function readSession(
  c: Context,
  db: Database,
): Promise<
  | { state: "valid"; session: Session; account: Account; bookmark: string | null }
  | { state: "expired"; id: string }
  | { state: "unknown" | "absent" }
> {
  const token = getCookie(c, SESSION_COOKIE);
  if (token === undefined) return { state: "absent" };
  if (!isSecretToken(token)) return { state: "unknown" };
  const id = await sha256Hex(token);
  const found = await findSession(atPrimary(db), id);
  if (!found) return { state: "unknown" };
  if (found.session.expiresAt.getTime() <= Date.now()) return { state: "expired", id };
  const { account, session } = found;
  return { state: "valid", session: { id, token }, account, bookmark: session.bookmark };
}

/** Ends the named session in D1, if one is named, and clears the browser's cookie. */
export async function endSession(c: Context, db: Database, id: string | undefined): Promise<void> {
  if (id !== undefined) await deleteSession(db, id);
  deleteCookie(c, SESSION_COOKIE, cookieOptions);
}

/**
 * The dashboard's way to D1: a post starts at the primary, and the bookmark
 * after it is kept with the browser's session, so the page it leads to
 * (through its 303) reads at least that fresh on any replica; a page starts
 * at that bookmark (`requireSession` reads it), else at the nearest copy.
 * Keeping it is not the post's work: if D1 refuses, the post still stands
 * and the log says so.
 */
export function dashboardReads(): MiddlewareHandler<DashboardEnv> {
  return async function dashboardReads(c, next) {
    const services = c.get("services");
    const writes = c.req.method === "POST";
    const reads = new RequestSession(services.db, writes ? "first-primary" : "first-unconstrained");
    c.set("services", { ...services, db: reads.database });
    c.set("reads", reads);
    await next();
    const session = c.get("session");
    const bookmark = reads.bookmark();
    if (!writes || !session || bookmark === undefined) return;
    await keepSessionBookmark(reads.database, session.id, bookmark).catch((error: unknown) => {
      log("warn", "a session's bookmark was not kept", {
        requestId: c.get("requestId"),
        error: describeError(error),
      });
    });
  };
}
