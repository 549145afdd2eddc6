import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";

export interface DeprecationSchedule {
  deprecatedAt: string;
  sunsetAt: string;
  successor: string;
  documentation: string;
}

/**
 * Marks every reply of a deprecated operation (RFC 9745 Deprecation, RFC 8594
 * Sunset, successor and documentation links) and answers 410 once the sunset
 * instant has passed, read from the clock so no deploy is needed.
 */
export function deprecated(schedule: (env: Env) => DeprecationSchedule): MiddlewareHandler<AppEnv> {
  return async function deprecated(c, next) {
    const { deprecatedAt, sunsetAt, successor, documentation } = schedule(c.env);
    const sunset = Date.parse(sunsetAt);
    const headers = {
      Deprecation: `@${Math.floor(Date.parse(deprecatedAt) / 1000)}`,
      Sunset: new Date(sunset).toUTCString(),
      Link: `<${successor}>; rel="successor-version", <${documentation}>; rel="deprecation"`,
    };
    if (Date.now() >= sunset) {
      throw new ApiError(
        "gone",
        `This operation was removed on ${headers.Sunset}; use ${successor} instead.`,
        { headers },
      );
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
