import type { Context, Hono, MiddlewareHandler, Next } from "hono";
import { methodNotAllowed } from "hono/method-not-allowed";
import { requestId } from "hono/request-id";
import { secureHeaders } from "hono/secure-headers";
import {
  API_PATH,
  DASHBOARD_PATH,
  DOCUMENT_PATH,
  OPERATOR_PATH,
  PHOTOS_PATH,
} from "../api/public-paths.ts";
import type { AppEnv } from "../context.ts";
import { ApiError, errorResponse, handleError, messages } from "../errors.ts";
import { log } from "../logging.ts";
import { answerConditionally } from "./conditional-read.ts";
import { nothing, preflightAnswer } from "./cors-preflight.ts";
import { methodNotAllowedError } from "./method-not-allowed.ts";
import { routeMethods } from "./route-methods.ts";
import { afterChanges, requestServices } from "./services.ts";

/**
 * What part of the Worker a path is in, each with its own reply headers:
 * the API's (/v1, and the document at the root too: per caller, so
 * revalidated or never stored), the operator's (new keys, invite links:
 * never stored), public files with their own ETag and caching (photos),
 * and the dashboard's pages. Pages of any origin may read the API's and the
 * files' replies (these take bearer keys, never cookies), and there
 * `If-None-Match` can turn a read's 200 into a 304.
 */
type Area = "api" | "operator" | "files" | "dashboard" | "other";

const AREAS: readonly (readonly [prefix: string, area: Area])[] = [
  [API_PATH, "api"],
  [DOCUMENT_PATH, "api"],
  [OPERATOR_PATH, "operator"],
  [PHOTOS_PATH, "files"],
  [DASHBOARD_PATH, "dashboard"],
];

/** The area of the path itself or one below it: "/v1" is answered (401 or 404) like any path under it. */
function areaOf(path: string): Area {
  for (const [prefix, area] of AREAS) {
    if (path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === "/")) {
      return area;
    }
  }
  return "other";
}

/** Where CORS applies and a read may be answered 304. */
const isShared = (area: Area) => area === "api" || area === "files";

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

/**
 * Names the request: the incoming cf-ray, else a fresh UUID. An incoming
 * X-Request-Id is not taken (hono/request-id would echo it), so no client
 * picks the id its log line is found by; the chain sends the id itself, so
 * that every reply carries it, a 304 and an error's included.
 */
const nameRequest = requestId({
  headerName: "",
  generator: (c) => c.req.header("cf-ray") ?? crypto.randomUUID(),
});

/**
 * `X-Content-Type-Options: nosniff` on every reply, and nothing else:
 * hono/secure-headers' other defaults (Cross-Origin-Resource-Policy above
 * all) would stop other origins' pages reading the API and showing photos.
 */
const noSniffing = secureHeaders({
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

/** A read a client may keep and revalidate: a GET or HEAD answered 200 or 304. */
function isRead(method: string): boolean {
  return method === "GET" || method === "HEAD";
}

/**
 * The request's work, inside the chain: the isolate's services (without a
 * valid configuration, a bland 500), the CORS preflights (no key, no
 * budget), else the app's routes, inside hono/method-not-allowed (the 405
 * where a path's routes serve other methods; the dashboard's unknown pages
 * stay pages, and a 404 a handler gave stays); then what the request's
 * changes left to do. A failure here is answered as the app's `onError`
 * would, so the chain still finishes its reply.
 */
async function answer(
  c: Context<AppEnv>,
  next: Next,
  area: Area,
  requestId: string,
  allowedMethods: MiddlewareHandler<AppEnv>,
  preflight: (c: Context<AppEnv>) => Promise<Response>,
): Promise<void> {
  try {
    const built = requestServices(c, requestId);
    if (!built) {
      c.res = errorResponse(c, new ApiError("internal_error", messages.internalError));
      return;
    }
    const { method } = c.req;
    if (method === "OPTIONS" && isShared(area)) {
      c.res = await preflight(c);
      return;
    }
    if (area === "dashboard") await next();
    else await allowedMethods(c, next);
    await afterChanges(c, built);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    c.error = error;
    c.res = handleError(error, c);
  }
}

/**
 * The one response chain: every reply of the Worker leaves through it,
 * whatever made it (a route, a 304, a preflight, an error `onError`
 * rendered, a 401 or 429 of the API's path, a 404 or 405). It runs first,
 * so it names the request and touches the reply last: the headers the request's
 * path recorded for it, the conditional read of a GET under the API or of
 * a photo (ETag, 304), Cache-Control, CORS, nosniff, the request id, then
 * one JSON log line.
 */
export function responseChain(app: Hono<AppEnv>): MiddlewareHandler<AppEnv> {
  const preflight = preflightAnswer(routeMethods(app));
  const allowedMethods = methodNotAllowed({
    app,
    onMethodNotAllowed: (c, methods) =>
      errorResponse(c, methodNotAllowedError(c.req.method, methods)),
  });
  return async function responseChain(c, next) {
    const started = performance.now();
    await nameRequest(c, nothing);
    const requestId = c.get("requestId");
    const area = areaOf(c.req.path);
    await answer(c, next, area, requestId, allowedMethods, preflight);
    const { method } = c.req;
    const recorded = c.get("replyHeaders");
    if (recorded) for (const name in recorded) c.res.headers.set(name, recorded[name] ?? "");
    if (isRead(method) && c.res.status === 200 && isShared(area)) {
      await answerConditionally(c);
    }
    const { headers, status } = c.res;
    if (area === "api") {
      const revalidated = isRead(method) && (status === 200 || status === 304);
      headers.set("Cache-Control", revalidated ? "private, no-cache" : "no-store");
    } else if (area === "operator") {
      headers.set("Cache-Control", "no-store");
    }
    if (isShared(area)) {
      headers.set("Access-Control-Allow-Origin", "*");
      headers.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    }
    await noSniffing(c, nothing);
    headers.set("X-Request-Id", requestId);
    logReply(c, requestId, started);
  };
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
