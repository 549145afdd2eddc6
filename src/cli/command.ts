import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { HEALTH_PATH } from "../api/public-paths.ts";

/**
 * What every command here shares: its arguments and exit code, and the
 * project as `npm start` leaves it for the operator command (its local state,
 * the record of where it serves that state, wrangler.toml). npm runs scripts
 * in the package root, so paths are relative to the working directory.
 */

/** Bad arguments: the command prints `message` as one line and exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Runs a command's main and turns its outcome into the exit code: 2 for usage errors, 1 for others. */
export async function runCommand(main: (args: string[]) => Promise<number>): Promise<void> {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    const usage = error instanceof UsageError;
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`error: ${reason}${usage ? " (see --help)" : ""}`);
    process.exitCode = usage ? 2 : 1;
  }
}

export type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * node:util parseArgs in strict mode, its errors turned into one-line
 * UsageErrors, taking exactly the positionals `names` names (unless --help
 * asks for the usage).
 */
export function parseCommand<T extends Options>(args: string[], options: T, names: string[] = []) {
  let parsed: ReturnType<typeof parseArgs<{ options: T; strict: true; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    const firstLine = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
    throw new UsageError(firstLine.split(". To specify")[0] ?? firstLine);
  }
  const { positionals, values } = parsed;
  if ("help" in values && values.help === true) return parsed;
  if (positionals.length < names.length)
    throw new UsageError(`missing <${names[positionals.length]}>`);
  if (positionals.length > names.length) {
    throw new UsageError(`unexpected argument "${positionals[names.length]}"`);
  }
  return parsed;
}

/** The environment `--env` names, if any. */
export function envOf(env: string | undefined): "staging" | "production" | undefined {
  if (env === undefined || env === "staging" || env === "production") return env;
  throw new UsageError(`unknown --env "${env}"; use staging or production`);
}

/** Local D1, KV and Durable Object state, served by `npm start`. */
export const LOCAL_STATE_DIR = ".wrangler/state";

/** The state directory `--persist-to` names, as given. */
export function stateDirOf(persistTo: string | undefined): string {
  if (persistTo === "") throw new UsageError("--persist-to needs a directory");
  return persistTo ?? LOCAL_STATE_DIR;
}

/** wrangler.toml as wrangler itself reads it (loaded only when needed: it is large). */
export async function wranglerConfig(root: string, env?: "staging" | "production") {
  const { unstable_readConfig } = await import("wrangler");
  return unstable_readConfig(
    { config: path.join(root, "wrangler.toml"), env },
    { hideWarnings: true },
  );
}

/**
 * Where `npm start` says it serves a state directory (its origin and its own
 * pid), so the operator command finds it on whatever port it took. Kept
 * beside the state it serves: one state directory, one server.
 */
const recordPath = (stateDir: string) => path.join(stateDir, "npm-start.json");

export function recordServing(stateDir: string, url: string): void {
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(recordPath(stateDir), `${JSON.stringify({ url, pid: process.pid })}\n`);
}

/** Removes the record if it is still this process's (a later `npm start` may have replaced it). */
export function forgetServing(stateDir: string): void {
  if (readRecord(stateDir)?.pid === process.pid) rmSync(recordPath(stateDir), { force: true });
}

function readRecord(stateDir: string): { url: string; pid: number } | undefined {
  try {
    const { url, pid } = JSON.parse(readFileSync(recordPath(stateDir), "utf8"));
    if (typeof url === "string" && URL.canParse(url) && Number.isSafeInteger(pid)) {
      return { url, pid };
    }
  } catch {
    // No record, or not one `npm start` wrote: nobody serves here.
  }
  return undefined;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether a Worker answers /health at `origin` within `timeoutMs`. */
export async function answersHealth(origin: string, timeoutMs = 3_000): Promise<boolean> {
  try {
    const response = await fetch(new URL(HEALTH_PATH, origin), {
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * The origin `npm start` serves `stateDir` on, or undefined when none does:
 * no record, or a stale one (its process gone, or nothing answering there).
 */
export async function findLocalServer(stateDir: string): Promise<string | undefined> {
  const record = readRecord(stateDir);
  if (!record || !isRunning(record.pid)) return undefined;
  const origin = new URL(record.url).origin;
  return (await answersHealth(origin)) ? origin : undefined;
}
