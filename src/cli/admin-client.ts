/**
 * The operator command's only way to change anything: the running Worker's
 * admin endpoint, so the command, the dashboard and the endpoint share one
 * code path. Every failure becomes one line saying what to do about it.
 */

/** A Worker to talk to and how, as `worker-target.ts` found it. */
export interface Connection {
  origin: string;
  token: string;
  /** Where the token came from, for a 401: "ADMIN_TOKEN in .dev.vars" or "the ADMIN_TOKEN environment variable". */
  tokenSource: string;
  /** What to do when nothing answers at `origin`, e.g. "start one with `npm start`". */
  unreachableHint: string;
}

export interface AdminRequest {
  method: "GET" | "POST";
  /** Path and query below the origin, e.g. `/admin/keys/<hash>/revoke`. */
  path: string;
  /** JSON body; omitted for requests that take none. */
  body?: unknown;
  /** What a 404 means here, e.g. "no key has this value"; without it, a missing admin endpoint. */
  notFound?: string;
}

export interface AdminClient {
  origin: string;
  call<T>(request: AdminRequest): Promise<T>;
}

/** Long enough for a deployed Worker to write D1, KV and a Durable Object on a slow day. */
const TIMEOUT_MS = 30_000;

interface ErrorBody {
  message?: unknown;
  details?: unknown;
}

function reasonOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (code) return code;
  return cause instanceof Error ? cause.message : String(cause);
}

function serverMessage(body: ErrorBody | undefined): string {
  if (typeof body?.message !== "string") return "";
  const details = Array.isArray(body.details)
    ? body.details
        .map((detail: { path?: unknown; message?: unknown }) => `${detail.path}: ${detail.message}`)
        .join("; ")
    : "";
  return details ? `${body.message} (${details})` : body.message;
}

/** One line for an answer that is not 2xx. */
function failureLine(
  connection: Connection,
  request: AdminRequest,
  status: number,
  body: ErrorBody | undefined,
): string {
  const at = `the Worker at ${connection.origin}`;
  const said = serverMessage(body);
  const saying = said ? `: ${said}` : "";
  switch (status) {
    case 401:
      return `${at} refused the operator token (401); check ${connection.tokenSource}`;
    case 404:
      return request.notFound
        ? `${request.notFound} at ${connection.origin} (404${saying})`
        : `${at} has no operator endpoint (404); is ADMIN_TOKEN set for it?`;
    case 409:
      return said || `${at} refused the change (409)`;
    case 503:
      return `${at} could not finish the change (503${saying}); try again: repeating the command completes it`;
    default:
      return `${at} answered ${status}${saying}`;
  }
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function adminClient(connection: Connection): AdminClient {
  return {
    origin: connection.origin,
    async call<T>(request: AdminRequest): Promise<T> {
      const withBody = request.body !== undefined;
      let response: Response;
      try {
        response = await fetch(new URL(request.path, connection.origin), {
          method: request.method,
          headers: {
            Authorization: `Bearer ${connection.token}`,
            ...(withBody ? { "Content-Type": "application/json" } : {}),
          },
          ...(withBody ? { body: JSON.stringify(request.body) } : {}),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (error) {
        if (error instanceof DOMException && error.name === "TimeoutError") {
          throw new Error(
            `the Worker at ${connection.origin} did not answer within ${TIMEOUT_MS / 1000} s; ${connection.unreachableHint}`,
          );
        }
        throw new Error(
          `no Worker answers at ${connection.origin} (${reasonOf(error)}); ${connection.unreachableHint}`,
        );
      }
      const body = await bodyOf(response);
      if (!response.ok) {
        throw new Error(failureLine(connection, request, response.status, body as ErrorBody));
      }
      if (typeof body !== "object" || body === null) {
        throw new Error(
          `the Worker at ${connection.origin} answered ${response.status} without JSON; is it the Pet Store API?`,
        );
      }
      return body as T;
    },
  };
}
