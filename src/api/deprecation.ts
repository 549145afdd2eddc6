import {
  type Deprecation,
  PATH_PARAMETER,
  type RouteTable,
  type ScheduledOperation,
} from "./route-table.ts";

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

/** A path segment that is one parameter, whole. */
const WHOLE_PARAMETER = /^\{([^}/]+)\}$/;

/**
 * Reads a request for the notice's operation: its path parameters by name
 * (`/pets/{petId}` matches `/v1/pets/42`), or undefined when the request is
 * for another operation. HEAD is answered by the GET route, so it is that
 * operation too. Every `/v1` request of such a method is read, so the path
 * is compared segment by segment, with no pattern to run.
 */
export function requestReader(
  notice: DeprecationNotice,
): (method: string, path: string) => Record<string, string> | undefined {
  const methods = notice.method === "GET" ? ["GET", "HEAD"] : [notice.method];
  const segments = `/v1${notice.path}`.split("/");
  const names = segments.map((segment) => WHOLE_PARAMETER.exec(segment)?.[1]);
  if (segments.some((segment, i) => names[i] === undefined && segment.includes("{"))) {
    throw new Error(`${notice.path}: a path parameter must be a whole segment`);
  }
  return (method, path) => {
    if (!methods.includes(method)) return undefined;
    const sent = path.split("/");
    if (sent.length !== segments.length) return undefined;
    const parameters: Record<string, string> = {};
    for (let i = 0; i < sent.length; i++) {
      const name = names[i];
      const value = sent[i] ?? "";
      if (name === undefined ? value !== segments[i] : value === "") return undefined;
      if (name !== undefined) parameters[name] = value;
    }
    return parameters;
  };
}

/** A text with `{name}`s, split once: its literal parts and, between them, the names. */
const templates = new Map<string, string[]>();

function fill(text: string, parameters: Record<string, string>): string {
  let parts = templates.get(text);
  if (!parts) {
    parts = text.split(PATH_PARAMETER);
    templates.set(text, parts);
  }
  let filled = "";
  parts.forEach((part, i) => {
    filled += i % 2 === 0 ? part : (parameters[part] ?? `{${part}}`);
  });
  return filled;
}

/** The successor, its `{name}`s filled from the request's path parameters (as sent, still encoded). */
export function successorOf(notice: DeprecationNotice, parameters: Record<string, string>): string {
  return fill(notice.successor, parameters);
}

/** The HTTP date of the removal, as the Sunset header and the 410 message give it. */
export const sunsetDate = (sunsetAt: number) => new Date(sunsetAt).toUTCString();

/** The Link header of every reply of a deprecated operation. */
export const deprecationLink = (notice: DeprecationNotice, parameters: Record<string, string>) =>
  `<${successorOf(notice, parameters)}>; rel="successor-version", <${notice.documentation}>; rel="deprecation"`;
