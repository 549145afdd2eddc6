import type { MiddlewareHandler } from "hono";
import { type DeprecationNotice, scheduleOf, sunsetDate } from "../api/deprecation.ts";
import type { AppEnv } from "../env.ts";
import { ApiError, messages } from "../errors.ts";

/** Whether the request is for the notice's operation: `/pets/{petId}` matches `/v1/pets/42`. */
function matcher(notice: DeprecationNotice): (method: string, path: string) => boolean {
  const pattern = notice.path.replace(/\{[^}]+\}/g, "[^/]+");
  const path = new RegExp(`^/v1${pattern}$`);
  // HEAD is answered by the GET route, so it carries the same marks.
  const methods = notice.method === "GET" ? ["GET", "HEAD"] : [notice.method];
  return (method, requestPath) => methods.includes(method) && path.test(requestPath);
}

/**
 * Marks every reply of a deprecated operation, errors included (a 401 or
 * 429 never reaches the route, so this runs ahead of authentication): RFC
 * 9745 Deprecation, RFC 8594 Sunset, and the successor and documentation links.
 */
export function deprecationMarks(notices: readonly DeprecationNotice[]): MiddlewareHandler<AppEnv> {
  const matchers = notices.map((notice) => ({ notice, matches: matcher(notice) }));
  return async function deprecationMarks(c, next) {
    await next();
    const notice = matchers.find(({ matches }) => matches(c.req.method, c.req.path))?.notice;
    if (!notice) return;
    const schedule = scheduleOf(notice, c.var.services.config);
    c.res.headers.set("Deprecation", `@${Math.floor(schedule.deprecatedAt / 1000)}`);
    c.res.headers.set("Sunset", sunsetDate(schedule));
    c.res.headers.set(
      "Link",
      `<${notice.successor}>; rel="successor-version", <${notice.documentation}>; rel="deprecation"`,
    );
  };
}

/**
 * Answers 410 from the sunset instant on, read from the clock so no deploy is
 * needed. It runs with the route, after authentication and rate limiting, so
 * the reply still carries the caller's budget like every other.
 */
export function goneAfterSunset(notice: DeprecationNotice): MiddlewareHandler<AppEnv> {
  return async function goneAfterSunset(c, next) {
    const schedule = scheduleOf(notice, c.var.services.config);
    if (Date.now() >= schedule.sunsetAt) {
      throw new ApiError("gone", messages.gone(sunsetDate(schedule), notice.successor));
    }
    await next();
  };
}
