import type { Context, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import type { RouterRoute } from "hono/types";
import { API_PATH, DOCUMENT_PATH, OPERATOR_PATH, PHOTOS_PATH } from "../api/public-paths.ts";
import type { AppEnv } from "../context.ts";
import { ApiError, messages } from "../errors.ts";
import { log } from "../logging.ts";
import { answerConditionally } from "./conditional-read.ts";
import { methodNotAllowedError } from "./method-not-allowed.ts";
import { routeMethods } from "./route-methods.ts";

/** The API's replies (/v1, and the document at the root too): per caller, so revalidated or never stored. */
const API_PATHS = [API_PATH, DOCUMENT_PATH];
/** The operator's replies (new keys, invite links): never stored. */
const OPERATOR_PATHS = [OPERATOR_PATH];
/** Public files that carry their own ETag and caching (photos). */
const FILE_PATHS = [PHOTOS_PATH];
/** Where a page of any origin may read replies: these take bearer keys, never cookies. */
const CORS_PATHS = [...API_PATHS, ...FILE_PATHS];
/** Where `If-None-Match` can turn a read's 200 into a 304. */
const CONDITIONAL_PATHS = [...API_PATHS, ...FILE_PATHS];

/** The request headers the API reads, which a page may send. */
const ALLOWED_REQUEST_HEADERS = [
  "Authorization",
  "Content-Type",
  "Idempotency-Key",
  "If-Match",
  "If-None-Match",
  "Consistency-Token",
];

/** Every response header the API documents, so a page can read it. */
export const EXPOSED_HEADERS = [
  "Link",
  "Location",
  "ETag",
  "Allow",
  "Retry-After",
  "WWW-Authenticate",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "RateLimit",
  "RateLimit-Policy",
  "Deprecation",
  "Sunset",
  "X-Request-Id",
  "Consistency-Token",
  "Idempotent-Replayed",
].join(", ");

const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

/** The path itself or one below it: "/v1" is answered (401 or 404) like any path under it. */
function under(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** A read a client may keep and revalidate: a GET or HEAD answered 200 or 304. */
function isRead(method: string): boolean {
  return method === "GET" || method === "HEAD";
}

/**
 * The headers of what the request itself went through, recorded on the
 * context by the middleware that knows them: the limiter's answer, and the
 * sealed D1 bookmark after the request's last query (when it reached D1) as
 * `Consistency-Token`. Any other such header belongs here too, so that
 * every status and every 304 carries it; a preflight goes through none of
 * them, so it carries none.
 */
function recordedHeaders(c: Context<AppEnv>, headers: Headers): void {
  const limits = c.get("rateLimitHeaders");
  if (limits) for (const [name, value] of Object.entries(limits)) headers.set(name, value);
  const token = c.get("consistencyToken");
  if (token !== undefined) headers.set("Consistency-Token", token);
}

/**
 * The one response chain: every reply of the Worker leaves through it,
 * whatever made it (a route, a 304, a preflight, an error `onError`
 * rendered, a 401 or 429 from middleware, a 404 or 405). It runs first, so
 * it touches the reply last: the conditional read of a GET under the API
 * or of a photo (ETag, 304), the headers recorded for the reply, Cache-Control, CORS,
 * the request id `requestIdentity` gave, then one JSON log line.
 */
export function responseChain(): MiddlewareHandler<AppEnv> {
  return async function responseChain(c, next) {
    const started = performance.now();
    await next();
    const { path, method } = c.req;
    const api = under(path, API_PATHS);
    if (isRead(method) && c.res.status === 200 && under(path, CONDITIONAL_PATHS)) {
      await answerConditionally(c);
    }
    const { headers, status } = c.res;
    recordedHeaders(c, headers);
    if (api) {
      const revalidated = isRead(method) && (status === 200 || status === 304);
      headers.set("Cache-Control", revalidated ? "private, no-cache" : "no-store");
    } else if (under(path, OPERATOR_PATHS)) {
      headers.set("Cache-Control", "no-store");
    }
    if (under(path, CORS_PATHS)) {
      headers.set("Access-Control-Allow-Origin", "*");
      headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    }
    const requestId = c.get("requestId");
    headers.set("X-Request-Id", requestId);
    logReply(c, requestId, started);
  };
}

/**
 * Names the request: the incoming cf-ray, else a fresh UUID. An incoming
 * X-Request-Id is not taken (hono/request-id would echo it), so no client
 * picks the id its log line is found by; the response chain sends the id,
 * so that every reply carries it, a 304 and an error's included.
 */
export function requestIdentity(): MiddlewareHandler<AppEnv> {
  return requestId({
    headerName: "",
    generator: (c) => c.req.header("cf-ray") ?? crypto.randomUUID(),
  });
}

/**
 * `X-Content-Type-Options: nosniff` on every reply, and nothing else:
 * hono/secure-headers' other defaults (Cross-Origin-Resource-Policy above
 * all) would stop other origins' pages reading the API and showing photos.
 */
export function noSniffing(): MiddlewareHandler<AppEnv> {
  return secureHeaders({
    crossOriginResourcePolicy: false,
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    referrerPolicy: false,
    strictTransportSecurity: false,
    xContentTypeOptions: true,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
    removePoweredBy: false,
  });
}

function logReply(c: Context<AppEnv>, requestId: string, started: number): void {
  const status = c.res.status;
  // Every 500 is logged, so a request refused for its configuration never reads it here.
  if (status < 500 && c.get("services").config.logLevel === "warn") return;
  const caller = c.get("caller");
  log(status >= 500 ? "error" : "info", "request", {
    requestId,
    method: c.req.method,
    route: c.req.routePath,
    status,
    durationMs: Math.round((performance.now() - started) * 100) / 100,
    key: caller && caller.kind !== "anonymous" ? `…${caller.key.lastFour}` : undefined,
  });
}

/**
 * Answers every `OPTIONS` under the CORS paths before any key is asked for
 * or budget spent. A CORS preflight (with Access-Control-Request-Method)
 * gets 204 allowing exactly the methods the app serves at that path; any
 * other `OPTIONS` asks for a method no route serves, so 405 naming those
 * that are; a path the app serves nothing at is 404 either way. hono/cors
 * answers every `OPTIONS` and allows every method, so it answers only the
 * preflights this lets through.
 */
export function corsPreflight(app: { routes: RouterRoute[] }): MiddlewareHandler<AppEnv> {
  const methodsAt = routeMethods(app);
  const answer = cors({
    origin: "*",
    allowMethods: (_origin, c) => methodsAt(c.req.path),
    allowHeaders: ALLOWED_REQUEST_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
  return async function corsPreflight(c, next) {
    const { method, path } = c.req;
    if (method !== "OPTIONS" || !under(path, CORS_PATHS)) return next();
    const served = methodsAt(path);
    if (served.length === 0) throw new ApiError("not_found", messages.notFound);
    if (!c.req.header("Access-Control-Request-Method")) {
      throw methodNotAllowedError(method, served);
    }
    return answer(c, next);
  };
}
