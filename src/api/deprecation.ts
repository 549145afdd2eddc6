/**
 * A deprecated operation, declared beside its route. The dates are not here:
 * they are configuration (wrangler.toml variables, named below), so a change
 * of schedule needs no code change, and the document and the headers read
 * the same values.
 */
export interface DeprecationNotice {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** The operation's path under /v1, written as in the OpenAPI document (`/pets/{petId}`). */
  path: string;
  /** What to use instead. */
  successor: string;
  /** Where the deprecation is explained. */
  documentation: string;
  /** The variable holding the ISO instant the deprecation took effect. */
  deprecatedAtVariable: string;
  /** The variable holding the ISO instant the operation is removed (410 from then on). */
  sunsetAtVariable: string;
}

export interface DeprecationSchedule {
  /** Unix milliseconds. */
  deprecatedAt: number;
  sunsetAt: number;
}

/** The notice's dates from the environment's variables; a missing or malformed one is a configuration error. */
export function scheduleOf(notice: DeprecationNotice, variables: object): DeprecationSchedule {
  const instant = (name: string) => {
    const value: unknown = Reflect.get(variables, name);
    const parsed = typeof value === "string" ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(parsed)) throw new Error(`configuration: ${name} is not an ISO date`);
    return parsed;
  };
  return {
    deprecatedAt: instant(notice.deprecatedAtVariable),
    sunsetAt: instant(notice.sunsetAtVariable),
  };
}

/** The HTTP date of the removal, as the Sunset header and the 410 message give it. */
export function sunsetDate(schedule: DeprecationSchedule): string {
  return new Date(schedule.sunsetAt).toUTCString();
}
