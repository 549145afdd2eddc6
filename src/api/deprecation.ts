import type { Deprecation, RouteTable, ScheduledOperation } from "./route-table.ts";

/** A deprecated operation, as its route declares it: where it is, and what replaces it. */
export interface DeprecationNotice extends Deprecation {
  /** The operation's id, which names its schedule in the configuration. */
  operationId: ScheduledOperation;
  /** The method in upper case, as requests carry it. */
  method: string;
  /** The operation's path under /v1, written as in the OpenAPI document (`/pets/{petId}`). */
  path: string;
}

/** The deprecated operations of these route tables. */
export function deprecationsIn(tables: readonly RouteTable[]): DeprecationNotice[] {
  return tables.flatMap((table) =>
    Object.entries(table).flatMap(([operationId, route]) =>
      route.deprecation
        ? [
            {
              ...route.deprecation,
              // `apiRoutes` refuses to compile a deprecation without a schedule.
              operationId: operationId as ScheduledOperation,
              method: route.method.toUpperCase(),
              path: route.path,
            },
          ]
        : [],
    ),
  );
}

const PATH_PARAMETER = /\{([^}]+)\}/g;

/**
 * Reads a request for the notice's operation: its path parameters by name
 * (`/pets/{petId}` matches `/v1/pets/42`), or undefined when the request is
 * for another operation. HEAD is answered by the GET route, so it is that
 * operation too.
 */
export function requestReader(
  notice: DeprecationNotice,
): (method: string, path: string) => Record<string, string> | undefined {
  const methods = notice.method === "GET" ? ["GET", "HEAD"] : [notice.method];
  const names = [...notice.path.matchAll(PATH_PARAMETER)].map((match) => match[1] ?? "");
  const pattern = new RegExp(`^/v1${notice.path.replace(PATH_PARAMETER, "([^/]+)")}$`);
  return (method, path) => {
    if (!methods.includes(method)) return undefined;
    const values = pattern.exec(path)?.slice(1);
    return values && Object.fromEntries(names.map((name, index) => [name, values[index] ?? ""]));
  };
}

/** The successor, its `{name}`s filled from the request's path parameters (as sent, still encoded). */
export function successorOf(notice: DeprecationNotice, parameters: Record<string, string>): string {
  return notice.successor.replace(PATH_PARAMETER, (written, name: string) => {
    return parameters[name] ?? written;
  });
}

/** The HTTP date of the removal, as the Sunset header and the 410 message give it. */
export const sunsetDate = (sunsetAt: number) => new Date(sunsetAt).toUTCString();

/** The Link header of every reply of a deprecated operation. */
export const deprecationLink = (notice: DeprecationNotice, parameters: Record<string, string>) =>
  `<${successorOf(notice, parameters)}>; rel="successor-version", <${notice.documentation}>; rel="deprecation"`;
