import path from "node:path";
import { UsageError } from "./command.ts";
import {
  findLocalServer,
  LOCAL_STATE_DIR,
  localAdminToken,
  projectRoot,
  wranglerVar,
} from "./project.ts";

/**
 * The operator command's only way to change anything: the running Worker's
 * admin endpoint, so the command, the dashboard and the endpoint share one
 * code path. Every failure becomes one line saying what to do about it.
 */

/** Where app.ts mounts the admin routes. */
const ADMIN_BASE = "/admin";

/** Long enough for a deployed Worker to write D1, KV and a Durable Object on a slow day. */
const TIMEOUT_MS = 30_000;

/** Options every subcommand that talks to a Worker shares: which one. */
export const targetOptions = {
  url: { type: "string" },
  env: { type: "string" },
  "persist-to": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export const targetHelp = `  --url URL                 talk to the Worker at URL (its origin) instead of the local one
  --env staging|production  talk to that environment's Worker (STAGING_URL / PRODUCTION_URL
                            in wrangler.toml), with ADMIN_TOKEN from the environment
  --persist-to DIR          find the local Worker \`npm start -- --persist-to DIR\` serves
                            (default ${LOCAL_STATE_DIR})
  -h, --help                show this help

Without --url or --env it talks to the Worker \`npm start\` serves, on whatever
port, with ADMIN_TOKEN from .dev.vars (ADMIN_TOKEN in the environment wins).`;

/** Options of the subcommands that set limits. */
export const limitOptions = {
  "per-minute": { type: "string" },
  "per-day": { type: "string" },
} as const;

export const limitsHelp = `  --per-minute N            enterprise only, required there: requests per minute
  --per-day N               enterprise only, required there: requests per day`;

/**
 * The numbers as typed, as numbers: the admin schema judges them, here
 * (`checkArguments`) and again on the Worker.
 */
export function limitsOf(values: {
  "per-minute"?: string | undefined;
  "per-day"?: string | undefined;
}) {
  const numberOf = (value: string | undefined) => (value === undefined ? undefined : Number(value));
  return { perMinute: numberOf(values["per-minute"]), perDay: numberOf(values["per-day"]) };
}

type Target =
  | { kind: "local"; stateDir: string }
  | { kind: "url"; origin: string }
  | { kind: "env"; env: "staging" | "production" };

interface TargetValues {
  url?: string | undefined;
  env?: string | undefined;
  "persist-to"?: string | undefined;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Which Worker the options name, checked before anything is sent. */
function targetOf({ url, env, "persist-to": persistTo }: TargetValues): Target {
  if (env !== undefined && env !== "staging" && env !== "production") {
    throw new UsageError(`unknown --env "${env}"; use staging or production`);
  }
  if (persistTo !== undefined && (env !== undefined || url !== undefined)) {
    throw new UsageError("--persist-to finds the local Worker; it cannot go with --url or --env");
  }
  if (env !== undefined && url !== undefined) {
    throw new UsageError("--url and --env both name the Worker; give one of them");
  }
  if (url !== undefined) {
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    if (parsed?.protocol !== "http:" && parsed?.protocol !== "https:") {
      throw new UsageError(`--url must be an http(s) URL, got "${url}"`);
    }
    // The operator token travels with every call: in the clear only to this machine.
    if (parsed.protocol === "http:" && !LOOPBACK.has(parsed.hostname)) {
      throw new UsageError(`--url must use https unless it is this machine, got "${url}"`);
    }
    return { kind: "url", origin: parsed.origin };
  }
  if (env !== undefined) {
    if (!process.env.ADMIN_TOKEN) {
      throw new UsageError(`--env ${env} needs ADMIN_TOKEN (${env}'s secret) in the environment`);
    }
    return { kind: "env", env };
  }
  if (persistTo === "") throw new UsageError("--persist-to needs a directory");
  return { kind: "local", stateDir: persistTo ?? LOCAL_STATE_DIR };
}

/** A Worker found, its token, and what to say about either when they fail. */
interface Connection {
  origin: string;
  token: string;
  /** Where the token came from, for a 401. */
  tokenSource: string;
  /** What to do when nothing answers at `origin`. */
  unreachableHint: string;
}

/** The token for a Worker named locally or by --url: the environment's, else .dev.vars's. */
function localToken(root: string): Pick<Connection, "token" | "tokenSource"> {
  if (process.env.ADMIN_TOKEN) {
    return { token: process.env.ADMIN_TOKEN, tokenSource: "the ADMIN_TOKEN environment variable" };
  }
  const token = localAdminToken(root);
  if (!token) {
    throw new Error(
      "no ADMIN_TOKEN in .dev.vars or the environment; `npm start` creates .dev.vars with one",
    );
  }
  return { token, tokenSource: "ADMIN_TOKEN in .dev.vars" };
}

/** Finds the Worker the target names and its token; fails in one line when none answers. */
async function connect(target: Target, root: string): Promise<Connection> {
  switch (target.kind) {
    case "local": {
      const origin = await findLocalServer(path.resolve(root, target.stateDir));
      if (origin === undefined) {
        const start =
          target.stateDir === LOCAL_STATE_DIR
            ? "`npm start`"
            : `\`npm start -- --persist-to ${target.stateDir}\``;
        throw new Error(
          `no local Worker is running (none serves ${target.stateDir}); start one with ${start}, or pass --url URL`,
        );
      }
      const unreachableHint = "start one with `npm start`, or pass --url URL";
      return { origin, ...localToken(root), unreachableHint };
    }
    case "url": {
      const unreachableHint = "check --url, or start a local Worker with `npm start`";
      return { origin: target.origin, ...localToken(root), unreachableHint };
    }
    case "env": {
      const name = target.env === "production" ? "PRODUCTION_URL" : "STAGING_URL";
      const url = await wranglerVar(root, target.env, name);
      if (!URL.canParse(url)) throw new Error(`wrangler.toml's ${name} is not a URL: "${url}"`);
      return {
        origin: new URL(url).origin,
        token: process.env.ADMIN_TOKEN ?? "",
        tokenSource: "the ADMIN_TOKEN environment variable",
        unreachableHint: `is ${target.env} deployed (\`npm run deploy:${target.env}\`)?`,
      };
    }
  }
}

export interface AdminRequest {
  method: "GET" | "POST";
  /** Path and query below the admin base, e.g. `/keys/<hash>/revoke`. */
  path: string;
  /** JSON body, as `checkArguments` passed it; omitted for requests that take none. */
  body?: unknown;
  /** What a 404 means here, e.g. "no key has this value"; without it, a missing admin endpoint. */
  notFound?: string;
}

export interface Worker {
  /**
   * Finds the Worker (on the first call) and sends it the request. `T` is the
   * route's answer, inferred from its admin schema.
   */
  send<T>(request: AdminRequest): Promise<T>;
  /** The origin the last `send` talked to. */
  readonly origin: string;
}

function reasonOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (code) return code;
  return cause instanceof Error ? cause.message : String(cause);
}

interface ErrorBody {
  message?: unknown;
  details?: unknown;
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
  notFound: string | undefined,
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
      return notFound
        ? `${notFound} at ${connection.origin} (404${saying})`
        : `${at} has no operator endpoint (404); is ADMIN_TOKEN set for it?`;
    case 409:
      return said || `${at} refused the change (409)`;
    case 503:
      return `${at} could not finish the change (503${saying}); try again: repeating the command completes it`;
    default:
      return `${at} answered ${status}${saying}`;
  }
}

async function call(connection: Connection, request: AdminRequest): Promise<unknown> {
  const withBody = request.body !== undefined;
  let response: Response;
  try {
    response = await fetch(new URL(`${ADMIN_BASE}${request.path}`, connection.origin), {
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
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    throw new Error(failureLine(connection, request.notFound, response.status, body as ErrorBody));
  }
  if (typeof body !== "object" || body === null) {
    throw new Error(
      `the Worker at ${connection.origin} answered ${response.status} without JSON; is it the Pet Store API?`,
    );
  }
  return body;
}

/** The Worker the options name (checked now); found on the first `send`. */
export function workerOf(values: TargetValues): Worker {
  const target = targetOf(values);
  let connection: Connection | undefined;
  return {
    get origin() {
      return connection?.origin ?? "";
    },
    async send<T>(request: AdminRequest) {
      connection ??= await connect(target, projectRoot());
      return (await call(connection, request)) as T;
    },
  };
}
