import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The project as `npm start` leaves it for the operator command: its local
 * state, the record of where it serves that state, .dev.vars and
 * wrangler.toml.
 */

/** Where the operator works from: npm runs scripts in the package root. */
export const projectRoot = (): string => process.cwd();

/** Local D1, KV and Durable Object state, served by `npm start`. */
export const LOCAL_STATE_DIR = ".wrangler/state";

/** wrangler.toml as wrangler itself reads it (loaded only when needed: it is large). */
export async function wranglerConfig(root: string, env?: "staging" | "production") {
  const { unstable_readConfig } = await import("wrangler");
  return unstable_readConfig(
    { config: path.join(root, "wrangler.toml"), env },
    { hideWarnings: true },
  );
}

/** A var that wrangler.toml sets for the environment, e.g. PRODUCTION_URL. */
export async function wranglerVar(
  root: string,
  env: "staging" | "production" | undefined,
  name: string,
): Promise<string> {
  const value = (await wranglerConfig(root, env)).vars[name];
  if (typeof value !== "string" || value === "") {
    throw new Error(`wrangler.toml sets no ${name}${env ? ` for ${env}` : ""}`);
  }
  return value;
}

/**
 * Creates .dev.vars from the committed .dev.vars.example when it is missing,
 * with a fresh random ADMIN_TOKEN and SESSION_SECRET. Returns whether it made the file.
 */
export function ensureDevVars(root: string): boolean {
  const target = path.join(root, ".dev.vars");
  if (existsSync(target)) return false;
  let text = readFileSync(path.join(root, ".dev.vars.example"), "utf8");
  for (const name of ["ADMIN_TOKEN", "SESSION_SECRET"]) {
    const value = randomBytes(32).toString("base64url");
    const line = new RegExp(`^${name}=.*$`, "m");
    text = line.test(text)
      ? text.replace(line, `${name}=${value}`)
      : `${text.trimEnd()}\n${name}=${value}\n`;
  }
  writeFileSync(target, text, { mode: 0o600, flag: "wx" });
  return true;
}

/** ADMIN_TOKEN of the local Worker, from .dev.vars as wrangler reads it; undefined when there is none. */
export function localAdminToken(root: string): string | undefined {
  const file = path.join(root, ".dev.vars");
  if (!existsSync(file)) return undefined;
  for (const line of readFileSync(file, "utf8").split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?ADMIN_TOKEN\s*=\s*(.*?)\s*$/.exec(line);
    const token = match?.[1]?.replace(/^(["'])(.*)\1$/, "$2");
    if (token) return token;
  }
  return undefined;
}

/**
 * Where `npm start` says it serves a state directory, so the operator command
 * finds it on whatever port it took. Kept beside the state it serves: one
 * state directory, one server.
 */
const recordPath = (stateDir: string) => path.join(stateDir, "npm-start.json");

interface ServingRecord {
  /** Origin wrangler dev answers on, e.g. http://127.0.0.1:8787. */
  url: string;
  /** The `npm start` process that wrote the record. */
  pid: number;
}

export function recordServing(stateDir: string, record: ServingRecord): void {
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(recordPath(stateDir), `${JSON.stringify(record)}\n`);
}

/** Removes the record if it is still this process's (a later `npm start` may have replaced it). */
export function forgetServing(stateDir: string, pid: number): void {
  if (readRecord(stateDir)?.pid === pid) rmSync(recordPath(stateDir), { force: true });
}

function readRecord(stateDir: string): ServingRecord | undefined {
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
    const response = await fetch(new URL("/health", origin), {
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
