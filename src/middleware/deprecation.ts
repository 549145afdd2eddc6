import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";

export interface DeprecationSchedule {
  deprecatedAt: string;
  sunsetAt: string;
  successor: string;
  documentation: string;
}

type ScheduleOf = (env: Env) => DeprecationSchedule;

function sunsetOf(schedule: DeprecationSchedule): string {
  return new Date(Date.parse(schedule.sunsetAt)).toUTCString();
}

/**
 * Marks every reply of a deprecated operation, errors included: RFC 9745
 * Deprecation, RFC 8594 Sunset, and the successor and documentation links.
 */
export function deprecated(scheduleOf: ScheduleOf): MiddlewareHandler<AppEnv> {
  return async function deprecated(c, next) {
    const schedule = scheduleOf(c.env);
    await next();
    c.res.headers.set("Deprecation", `@${Math.floor(Date.parse(schedule.deprecatedAt) / 1000)}`);
    c.res.headers.set("Sunset", sunsetOf(schedule));
    c.res.headers.set(
      "Link",
      `<${schedule.successor}>; rel="successor-version", <${schedule.documentation}>; rel="deprecation"`,
    );
  };
}

/**
 * Answers 410 from the sunset instant on, read from the clock so no deploy is
 * needed. It runs after authentication and rate limiting, so the reply still
 * carries the caller's budget like every other.
 */
export function goneAfterSunset(scheduleOf: ScheduleOf): MiddlewareHandler<AppEnv> {
  return async function goneAfterSunset(c, next) {
    const schedule = scheduleOf(c.env);
    if (Date.now() >= Date.parse(schedule.sunsetAt)) {
      throw new ApiError(
        "gone",
        `This operation was removed on ${sunsetOf(schedule)}; use ${schedule.successor} instead.`,
      );
    }
    await next();
  };
}
