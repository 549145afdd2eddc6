import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Where `npm start` says it serves a state directory, so the operator command
 * finds it on whatever port it took. Kept beside the state it serves: one
 * state directory, one server.
 */
const RECORD_FILE = "npm-start.json";

export interface ServingRecord {
  /** Origin wrangler dev answers on, e.g. http://127.0.0.1:8787. */
  url: string;
  /** The `npm start` process that wrote the record. */
  pid: number;
}

const recordPath = (stateDir: string) => path.join(stateDir, RECORD_FILE);

export function recordServing(stateDir: string, record: ServingRecord): void {
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(recordPath(stateDir), `${JSON.stringify(record)}\n`);
}

/** Removes the record if it is still this process's (a later `npm start` may have replaced it). */
export function forgetServing(stateDir: string, pid: number): void {
  if (readRecord(stateDir)?.pid === pid) rmSync(recordPath(stateDir), { force: true });
}

function readRecord(stateDir: string): ServingRecord | undefined {
  let stored: unknown;
  try {
    stored = JSON.parse(readFileSync(recordPath(stateDir), "utf8"));
  } catch {
    return undefined;
  }
  if (typeof stored !== "object" || stored === null) return undefined;
  const { url, pid } = stored as Record<string, unknown>;
  if (typeof url !== "string" || !URL.canParse(url) || !Number.isSafeInteger(pid)) return undefined;
  return { url, pid: pid as number };
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
