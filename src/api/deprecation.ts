import type { Config, DeprecationSchedule } from "../config.ts";

/**
 * A deprecated operation, declared beside its route. The dates are not here:
 * they are configuration (wrangler.toml variables), so a change of schedule
 * needs no code change, and the document and the headers read the same values.
 */
export interface DeprecationNotice {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** The operation's path under /v1, written as in the OpenAPI document (`/pets/{petId}`). */
  path: string;
  /** What to use instead. */
  successor: string;
  /** Where the deprecation is explained. */
  documentation: string;
  /** The operation's id, which names its schedule in the configuration. */
  operationId: keyof Config["deprecations"];
}

/** The notice's dates, as this environment's configuration sets them. */
export function scheduleOf(
  notice: DeprecationNotice,
  config: Pick<Config, "deprecations">,
): DeprecationSchedule {
  return config.deprecations[notice.operationId];
}

/** The HTTP date of the removal, as the Sunset header and the 410 message give it. */
export function sunsetDate(schedule: DeprecationSchedule): string {
  return new Date(schedule.sunsetAt).toUTCString();
}
