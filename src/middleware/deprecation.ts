import type { MiddlewareHandler } from "hono";
import {
  type DeprecationNotice,
  deprecationLink,
  requestReader,
  successorOf,
  sunsetDate,
} from "../api/deprecation.ts";
import type { AppEnv } from "../context.ts";
import { ApiError, messages } from "../errors.ts";

/**
 * The path of a request's URL as the client sent it, still percent-encoded
 * (`c.req.path` is decoded), so a successor link built from it is a valid URI.
 */
function pathAsSent(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const query = url.indexOf("?", start);
  return url.slice(start, query === -1 ? undefined : query);
}

/**
 * Marks every reply of a deprecated operation, errors included (a 401 or
 * 429 never reaches the route, so this runs ahead of authentication): RFC
 * 9745 Deprecation, RFC 8594 Sunset, and the successor and documentation links.
 */
export function deprecationMarks(notices: readonly DeprecationNotice[]): MiddlewareHandler<AppEnv> {
  const readers = notices.map((notice) => ({ notice, read: requestReader(notice) }));
  return async function deprecationMarks(c, next) {
    await next();
    for (const { notice, read } of readers) {
      const parameters = read(c.req.method, pathAsSent(c.req.url));
      if (!parameters) continue;
      const schedule = c.get("services").config.deprecations[notice.operationId];
      c.res.headers.set("Deprecation", `@${Math.floor(schedule.deprecatedAt / 1000)}`);
      c.res.headers.set("Sunset", sunsetDate(schedule.sunsetAt));
      c.res.headers.set("Link", deprecationLink(notice, parameters));
      return;
    }
  };
}

/**
 * Answers 410 from the sunset instant on, read from the clock so no deploy is
 * needed. It runs with the route, after authentication and rate limiting, so
 * the reply still carries the caller's budget like every other.
 */
export function goneAfterSunset(notice: DeprecationNotice): MiddlewareHandler<AppEnv> {
  const read = requestReader(notice);
  return async function goneAfterSunset(c, next) {
    const { sunsetAt } = c.get("services").config.deprecations[notice.operationId];
    if (Date.now() >= sunsetAt) {
      const successor = successorOf(notice, read(c.req.method, pathAsSent(c.req.url)) ?? {});
      throw new ApiError("gone", messages.gone(sunsetDate(sunsetAt), successor));
    }
    await next();
  };
}
