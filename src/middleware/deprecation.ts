import type { Context } from "hono";
import {
  type DeprecationNotice,
  deprecationLink,
  requestReader,
  successorOf,
  sunsetDate,
} from "../api/deprecation.ts";
import type { Config } from "../config.ts";
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

type Schedule = Config["deprecations"][keyof Config["deprecations"]];

/**
 * The Deprecation and Sunset values of each schedule, written once: the
 * configuration is made once per isolate, so its schedules are the same
 * objects on every request.
 */
const datesOf = new WeakMap<Schedule, { Deprecation: string; Sunset: string }>();

function scheduleHeaders(schedule: Schedule): { Deprecation: string; Sunset: string } {
  let dates = datesOf.get(schedule);
  if (!dates) {
    dates = {
      Deprecation: `@${Math.floor(schedule.deprecatedAt / 1000)}`,
      Sunset: sunsetDate(schedule.sunsetAt),
    };
    datesOf.set(schedule, dates);
  }
  return dates;
}

/**
 * The marks of every reply of a deprecated operation, errors included (a
 * 401 or 429 never reaches the route, so they are found before
 * authentication): RFC 9745 Deprecation, RFC 8594 Sunset, and the successor
 * and documentation links, put into `headers`. A request's path is read only
 * when its method is a deprecated operation's.
 */
export function deprecationMarks(
  notices: readonly DeprecationNotice[],
): (c: Context<AppEnv>, config: Config, headers: Record<string, string>) => void {
  const readers = notices.map((notice) => ({ notice, read: requestReader(notice) }));
  const methods = new Set(readers.flatMap(({ notice }) => [notice.method, "HEAD"]));
  return (c, config, headers) => {
    const { method } = c.req;
    if (!methods.has(method)) return;
    const path = pathAsSent(c.req.url);
    for (const { notice, read } of readers) {
      const parameters = read(method, path);
      if (!parameters) continue;
      Object.assign(headers, scheduleHeaders(config.deprecations[notice.operationId]));
      headers.Link = deprecationLink(notice, parameters);
      return;
    }
  };
}

/**
 * Answers 410 from the sunset instant on, read from the clock so no deploy is
 * needed. It runs with the route, after authentication and rate limiting, so
 * the reply still carries the caller's budget like every other.
 */
export function goneAfterSunset(notice: DeprecationNotice): (c: Context<AppEnv>) => void {
  const read = requestReader(notice);
  return (c) => {
    const { sunsetAt } = c.get("services").config.deprecations[notice.operationId];
    if (Date.now() < sunsetAt) return;
    const successor = successorOf(notice, read(c.req.method, pathAsSent(c.req.url)) ?? {});
    throw new ApiError("gone", messages.gone(sunsetDate(sunsetAt), successor));
  };
}
