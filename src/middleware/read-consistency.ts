import type { MiddlewareHandler } from "hono";
import { bookmarkOf } from "../api/consistency-token.ts";
import type { AppEnv } from "../context.ts";
import { newerBookmark, RequestSession, type SessionStart } from "../db/request-session.ts";
import { ApiError, messages } from "../errors.ts";
import { ExpiringCache } from "../utils/expiring-cache.ts";

/**
 * The newest bookmark this isolate issued to each key, for that key's next
 * request that sends none: a client that ignores `Consistency-Token` still
 * reads its own writes when its requests reach the same isolate. A replica
 * lags by well under a minute, so five minutes is plenty; 20,000 short
 * strings bound the memory.
 */
const issued = new ExpiringCache<string, string>(20_000, 5 * 60_000);

const HEADER = "Consistency-Token";

/** The bookmark the request sent back; a header that is not one of our tokens is a 400. */
function sentBookmark(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const bookmark = bookmarkOf(header.trim());
  if (bookmark !== undefined) return bookmark;
  const message = messages.invalidConsistencyToken;
  throw new ApiError("invalid_request", messages.invalidRequest(`${HEADER}: ${message}`), {
    details: [{ path: HEADER, message }],
  });
}

/**
 * A request that writes starts at the primary, where its ownership and
 * state checks and its idempotency claim are decided; a read starts at the
 * newest bookmark it sent or this isolate issued to its key, else at the
 * nearest copy.
 */
function startOf(method: string, sent: string | undefined, keyHash: string): SessionStart {
  if (method !== "GET" && method !== "HEAD") return "first-primary";
  const after = newerBookmark(sent, issued.get(keyHash, Date.now()));
  return after === undefined ? "first-unconstrained" : { after };
}

/**
 * Gives an admitted `/v1` request its own D1 session (as `services.db`),
 * started where `startOf` says; the response chain writes the bookmark after
 * its last query as `Consistency-Token`, and this isolate remembers it as
 * the key's newest.
 */
export function readConsistency(): MiddlewareHandler<AppEnv> {
  return async function readConsistency(c, next) {
    const sent = sentBookmark(c.req.header(HEADER));
    const keyHash = c.get("apiKey").hash;
    const services = c.get("services");
    const session = new RequestSession(services.db, startOf(c.req.method, sent, keyHash));
    c.set("services", { ...services, db: session.database });
    await next();
    const bookmark = session.bookmark();
    if (bookmark === undefined) return;
    c.set("bookmark", bookmark);
    const now = Date.now();
    const newest = newerBookmark(issued.get(keyHash, now), bookmark);
    if (newest !== undefined) issued.set(keyHash, newest, now);
  };
}
