import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import type { z } from "@hono/zod-openapi";
import { OPERATOR_PATH } from "../api/public-paths.ts";
import {
  envOf,
  findLocalServer,
  LOCAL_STATE_DIR,
  type Options,
  parseCommand,
  runCommand,
  stateDirOf,
  UsageError,
  wranglerConfig,
} from "./command.ts";

/**
 * The operator command's only way to change anything: the running Worker's
 * admin endpoint, so the command, the dashboard and the endpoint share one
 * code path. Every failure becomes one line saying what to do about it.
 */

/** Long enough for a deployed Worker to write D1, KV and a Durable Object on a slow day. */
const TIMEOUT_MS = 30_000;

/** Options every operator subcommand takes: which Worker. */
const targetOptions = {
  url: { type: "string" },
  env: { type: "string" },
  "persist-to": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const targetHelp = `  --url URL                 talk to the Worker at URL (its origin) instead of the local one
  --env staging|production  talk to that environment's Worker (STAGING_URL / PRODUCTION_URL
                            in wrangler.toml), with ADMIN_TOKEN from the environment
  --persist-to DIR          find the local Worker \`npm start -- --persist-to DIR\` serves
                            (default ${LOCAL_STATE_DIR})
  -h, --help                show this help

Without --url or --env it talks to the Worker \`npm start\` serves, on whatever
port, with ADMIN_TOKEN from .dev.vars (ADMIN_TOKEN in the environment wins).`;

/**
 * Arguments as the Worker's own schema for them takes them, checked here
 * before anything is sent, so a refusal changes nothing; the Worker checks
 * them again. A field reads as the user wrote it: `<plan>` when it is one of
 * the `positionals`, the option `options` names for it, else its own option
 * (`perDay` is `--per-day`).
 */
export function checkArguments<S extends z.ZodType>(
  schema: S,
  value: unknown,
  positionals: string[] = [],
  options: Record<string, string> = {},
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = String(issue?.path[0] ?? "");
  const option =
    options[field] ?? `--${field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
  throw new UsageError(`${positionals.includes(field) ? `<${field}>` : option}: ${issue?.message}`);
}

/** "2026-11-22 14:05 UTC": to the minute, which is all an operator compares. */
export const minuteOf = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

/** The operator token: the environment's, else (for a local Worker or --url) .dev.vars's. */
function adminToken(): string {
  const fromFile = existsSync(".dev.vars") && parseEnv(readFileSync(".dev.vars", "utf8"));
  const token = process.env.ADMIN_TOKEN || (fromFile || undefined)?.ADMIN_TOKEN;
  if (token) return token;
  throw new Error(
    "no ADMIN_TOKEN in .dev.vars or the environment; `npm start` creates .dev.vars with one",
  );
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Checks now which Worker the options name: how to find its origin, and what to do when it does not answer. */
function targetOf(values: { url?: string; env?: string; "persist-to"?: string }) {
  const { url, "persist-to": persistTo } = values;
  const env = envOf(values.env);
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
    return {
      find: async () => parsed.origin,
      hint: "check --url, or start a local Worker with `npm start`",
    };
  }
  if (env !== undefined) {
    if (!process.env.ADMIN_TOKEN) {
      throw new UsageError(`--env ${env} needs ADMIN_TOKEN (${env}'s secret) in the environment`);
    }
    const name = env === "production" ? "PRODUCTION_URL" : "STAGING_URL";
    const find = async () => {
      const url = (await wranglerConfig(process.cwd(), env)).vars[name];
      if (typeof url === "string" && URL.canParse(url)) return new URL(url).origin;
      throw new Error(`wrangler.toml's ${name} for ${env} is not a URL: "${url ?? ""}"`);
    };
    return { find, hint: `is ${env} deployed (\`npm run deploy:${env}\`)?` };
  }
  const stateDir = stateDirOf(persistTo);
  const find = async () => {
    const origin = await findLocalServer(path.resolve(stateDir));
    if (origin !== undefined) return origin;
    const start = persistTo ? `\`npm start -- --persist-to ${stateDir}\`` : "`npm start`";
    throw new Error(
      `no local Worker is running (none serves ${stateDir}); start one with ${start}, or pass --url URL`,
    );
  };
  return { find, hint: "start one with `npm start`, or pass --url URL" };
}

/** The Worker's own error message with its details, or "". */
function serverMessage(body: { message?: unknown; details?: unknown } | undefined): string {
  if (typeof body?.message !== "string") return "";
  const details = Array.isArray(body.details)
    ? body.details.map((detail) => `${detail?.path}: ${detail?.message}`).join("; ")
    : "";
  return details ? `${body.message} (${details})` : body.message;
}

/** One line for an answer that is not 2xx. */
function failureLine(origin: string, notFound: string | undefined, status: number, body: unknown) {
  const at = `the Worker at ${origin}`;
  const said = serverMessage(body as { message?: unknown } | undefined);
  const saying = said ? `: ${said}` : "";
  switch (status) {
    case 401: {
      const source = process.env.ADMIN_TOKEN
        ? "the ADMIN_TOKEN environment variable"
        : "ADMIN_TOKEN in .dev.vars";
      return `${at} refused the operator token (401); check ${source}`;
    }
    case 404:
      return notFound
        ? `${notFound} at ${origin} (404${saying})`
        : `${at} has no operator endpoint (404); is ADMIN_TOKEN set for it?`;
    case 409:
      return said || `${at} refused the change (409)`;
    case 503:
      return `${at} could not finish the change (503${saying}); try again: repeating the command completes it`;
    default:
      return `${at} answered ${status}${saying}`;
  }
}

/** The Worker the options name: checked at once, found on the first `send`. */
function workerOf(values: { url?: string; env?: string; "persist-to"?: string }) {
  const target = targetOf(values);
  let origin = "";
  return {
    get origin() {
      return origin;
    },
    /**
     * Sends a request to `path` below the admin base; `T` is the route's
     * answer, inferred from its admin schema. `notFound` says what a 404
     * means (without it, a missing admin endpoint).
     */
    async send<T>(
      method: "GET" | "POST",
      path: string,
      { body, notFound }: { body?: unknown; notFound?: string } = {},
    ): Promise<T> {
      origin ||= await target.find();
      let response: Response;
      try {
        response = await fetch(new URL(`${OPERATOR_PATH}${path}`, origin), {
          method,
          headers: { Authorization: `Bearer ${adminToken()}`, "Content-Type": "application/json" },
          body: body === undefined ? null : JSON.stringify(body),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (error) {
        if (error instanceof DOMException && error.name === "TimeoutError") {
          throw new Error(
            `the Worker at ${origin} did not answer within ${TIMEOUT_MS / 1000} s; ${target.hint}`,
          );
        }
        const cause = (error as Error).cause as NodeJS.ErrnoException | undefined;
        const reason = cause?.code ?? cause?.message ?? String(error);
        throw new Error(`no Worker answers at ${origin} (${reason}); ${target.hint}`);
      }
      const answer: unknown = await response.json().catch(() => undefined);
      if (!response.ok) throw new Error(failureLine(origin, notFound, response.status, answer));
      if (typeof answer === "object" && answer !== null) return answer as T;
      throw new Error(
        `the Worker at ${origin} answered ${response.status} without JSON; is it the Pet Store API?`,
      );
    },
  };
}

type Worker = ReturnType<typeof workerOf>;

type Values<O extends Options> = ReturnType<
  typeof parseCommand<O & typeof targetOptions>
>["values"];

/** One subcommand of `npm run key` or `npm run account`. */
interface Subcommand<O extends Options> {
  /** What follows the subcommand's name in the usage; each `<name>` in it is a positional it takes. */
  synopsis: string;
  /** Its line in the command's usage. */
  summary: string;
  /** Its --help, between its usage line and the options every subcommand takes. */
  help: string;
  options: O;
  run(values: Values<O>, positionals: string[], worker: Worker): Promise<void>;
}

/** Keeps a subcommand's options and its `run` in step. */
export const subcommand = <O extends Options>(spec: Subcommand<O>): Subcommand<Options> =>
  spec as unknown as Subcommand<Options>;

/** Runs `npm run <command> -- <name> …`: picks the subcommand by name, or prints the usage. */
export async function runOperatorCommand(
  command: string,
  subcommands: Record<string, Subcommand<Options>>,
): Promise<void> {
  const names = Object.keys(subcommands);
  const lines = names.map((name) => {
    const synopsis = `  ${name} ${subcommands[name]?.synopsis}`.trimEnd();
    const gap = synopsis.length < 26 ? " ".repeat(26 - synopsis.length) : `\n${" ".repeat(26)}`;
    return `${synopsis}${gap}${subcommands[name]?.summary}`;
  });
  const usage = `Usage: npm run ${command} -- <subcommand> [options]

${lines.join("\n")}

Each talks to the running Worker's admin endpoint: the one \`npm start\` serves
unless --url URL or --env staging|production names another.
\`npm run ${command} -- <subcommand> --help\` describes each one.`;

  await runCommand(async ([name, ...args]) => {
    if (name === "--help" || name === "-h" || name === "help") {
      console.log(usage);
      return 0;
    }
    if (name === undefined) throw new UsageError(`missing subcommand: ${names.join(", ")}`);
    const chosen = Object.hasOwn(subcommands, name) ? subcommands[name] : undefined;
    if (!chosen) throw new UsageError(`unknown subcommand "${name}"; use ${names.join(", ")}`);
    const positionals = [...chosen.synopsis.matchAll(/<(\w+)>/g)].map((match) => match[1] ?? "");
    const options = { ...chosen.options, ...targetOptions };
    const parsed = parseCommand(args, options, positionals);
    if (parsed.values.help) {
      const usageLine = `Usage: npm run ${command} -- ${name} ${chosen.synopsis} [options]`;
      console.log(`${usageLine}\n\n${chosen.help}\n${targetHelp}`);
      return 0;
    }
    const worker = workerOf(parsed.values);
    await chosen.run(parsed.values, parsed.positionals, worker);
    return 0;
  });
}
