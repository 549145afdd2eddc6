import type { Context } from "hono";
import { openToken, sealToken } from "../api/consistency-token.ts";
import type { AppEnv, AuthenticatedKey } from "../context.ts";
import { newerBookmark, RequestSession, type SessionStart } from "../db/request-session.ts";
import { ApiError, messages } from "../errors.ts";
import type { Services } from "../services.ts";
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

/**
 * The bookmark the request sent back, undefined for none or one older than
 * a day; a header that is not a token sealed for the key's account with a
 * secret in force is a 400, and never remembered.
 */
async function sentBookmark(
  header: string | undefined,
  account: number,
  secrets: readonly string[] | undefined,
  now: number,
): Promise<string | undefined> {
  if (header === undefined) return undefined;
  const opened = secrets ? await openToken(header.trim(), account, secrets, now) : "invalid";
  if (opened === "expired") return undefined;
  if (opened !== "invalid") return opened.bookmark;
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

/** An admitted request's D1 session, and what its reply carries once the request is done. */
interface ReadSession {
  /** The services with the session as their database. */
  services: Services;
  /** Seals the bookmark after the request's last query into `headers`, and remembers it as the key's newest. */
  finish(headers: Record<string, string>): Promise<void>;
}

/**
 * Gives an admitted `/v1` request its own D1 session, started where
 * `startOf` says; the bookmark after its last query goes out sealed as
 * `Consistency-Token`, and this isolate remembers it as the key's newest.
 */
export async function readSession(
  c: Context<AppEnv>,
  services: Services,
  key: AuthenticatedKey,
): Promise<ReadSession> {
  const { hash: keyHash, record } = key;
  const secrets = services.config.consistencyTokens;
  const sent = await sentBookmark(c.req.header(HEADER), record.accountId, secrets, Date.now());
  const session = new RequestSession(services.db, startOf(c.req.method, sent, keyHash));
  return {
    services: { ...services, db: session.database },
    async finish(headers) {
      const bookmark = session.bookmark();
      if (bookmark === undefined) return;
      const now = Date.now();
      if (secrets) headers[HEADER] = await sealToken(bookmark, record.accountId, secrets[0], now);
      const newest = newerBookmark(issued.get(keyHash, now), bookmark);
      if (newest !== undefined) issued.set(keyHash, newest, now);
    },
  };
}
