import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream, rmSync } from "node:fs";
import { access, mkdtemp, readdir, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort } from "../free-port.ts";
import { signalGroup, stopGroup } from "../node/process-group.ts";
import type { Target } from "./measure.ts";

export const ROOT = path.resolve(import.meta.dirname, "../..");
/** The real Worker's configuration, which serves the floor too. */
export const API_CONFIG = path.join(ROOT, "wrangler.toml");
/** The floor Worker: served with the real Worker's bindings, variables and assets routing. */
export const FLOOR_SCRIPT = path.join(ROOT, "test/bench/floor/floor-worker.ts");
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
export const HOST = "127.0.0.1";

const wranglerEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  // Keep miniflare off the network: use its placeholder `request.cf`, not a download.
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_LOG: "warn",
  // wrangler dev streams every invocation's trace events (each fetch, RPC and
  // D1 call) to a local collector inside the same workerd, for its local
  // explorer. A deployed Worker runs nothing of the kind, yet here it took
  // 9–13% of workerd's CPU, a cost per call rather than per line of code, so
  // it weighed on the thin floors and the API unequally and moved every ratio.
  X_LOCAL_OBSERVABILITY: "false",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
};

/** Every process this bench started, so any exit path can stop them. */
const started = new Set<ChildProcess>();

export interface WranglerOptions {
  timeoutMs?: number;
  /** "log" to get what a command prints as its result (`d1 execute --json`); warnings only by default. */
  logLevel?: "warn" | "log";
}

/** Runs one wrangler command to completion (bounded), failing with its output. */
export async function wrangler(args: string[], options: WranglerOptions = {}): Promise<string> {
  const { timeoutMs = 120_000, logLevel = "warn" } = options;
  const child = spawn(process.execPath, [WRANGLER, ...args], {
    cwd: ROOT,
    env: { ...wranglerEnv, WRANGLER_LOG: logLevel },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  started.add(child);
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const timer = setTimeout(() => stopGroup(child, "SIGTERM", 5_000), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  started.delete(child);
  if (code !== 0) {
    throw new Error(`wrangler ${args.slice(0, 3).join(" ")} exited with ${code}:\n${output}`);
  }
  return output;
}

/**
 * Bundles a Worker once, up front, with the same esbuild step `wrangler dev`
 * uses, so edits made to src/ while the bench runs cannot reload the server
 * and change what is measured halfway: the configuration's own entry, or
 * `script` in its place. Its source map is written beside it.
 */
export async function bundle(config: string, outdir: string, script?: string): Promise<string> {
  const entry = script === undefined ? [] : [script];
  await wrangler([
    "deploy",
    ...entry,
    "--dry-run",
    "--config",
    config,
    "--env=",
    "--outdir",
    outdir,
  ]);
  const bundled = (await readdir(outdir)).find((file) => file.endsWith(".js"));
  if (!bundled) throw new Error(`no bundle written to ${outdir}`);
  return path.join(outdir, bundled);
}

/**
 * A fresh directory for the servers' D1 and Durable Object state: in memory
 * (/dev/shm) where the machine has it, since the bench measures the Worker's
 * work and the disk's flush stalls only widen every ratio's noise band; else
 * the system's temporary directory. The caller removes it.
 */
export async function makeStateDir(): Promise<string> {
  const inMemory = "/dev/shm";
  const root = await access(inMemory).then(
    () => inMemory,
    () => os.tmpdir(),
  );
  return mkdtemp(path.join(root, "petstore-bench-"));
}

export interface DevServer {
  name: string;
  origin: string;
  logFile: string;
  /** The process group of its wrangler and the workerd it runs (the group leader's pid). */
  processGroup: number;
  /** Where its Worker's DevTools inspector listens (Chrome DevTools protocol). */
  inspectorPort: number;
  /** The bundle it serves, with its source map beside it. */
  script: string;
  stop(): Promise<void>;
}

export interface DevServerOptions {
  name: string;
  config: string;
  script: string;
  persistTo: string;
  logFile: string;
  readyPath: string;
  vars?: Record<string, string>;
}

/** `wrangler dev` (workerd, as `npm start` runs it) on a free loopback port, ready to serve. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const vars = Object.entries(options.vars ?? {}).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  const child = spawn(
    process.execPath,
    [
      WRANGLER,
      "dev",
      options.script,
      "--no-bundle",
      "--config",
      options.config,
      "--ip",
      HOST,
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      options.persistTo,
      "--log-level",
      "warn",
      "--show-interactive-dev-session=false",
      ...vars,
    ],
    { cwd: ROOT, env: wranglerEnv, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  started.add(child);
  const log = createWriteStream(options.logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const server: DevServer = {
    name: options.name,
    origin: `http://${HOST}:${port}`,
    logFile: options.logFile,
    processGroup: child.pid ?? 0,
    inspectorPort,
    script: options.script,
    stop: async () => {
      await stopGroup(child, "SIGTERM", 5_000);
      started.delete(child);
    },
  };
  try {
    await waitUntilReady(child, `${server.origin}${options.readyPath}`);
  } catch (error) {
    await server.stop();
    const tail = (await readFile(options.logFile, "utf8").catch(() => "")).slice(-2_000);
    throw new Error(`${options.name} did not start: ${(error as Error).message}\n${tail}`);
  }
  return server;
}

/** Starts the servers side by side; if one fails, stops the others and throws its error. */
export async function startDevServers(options: DevServerOptions[]): Promise<DevServer[]> {
  const starting = await Promise.allSettled(options.map(startDevServer));
  const servers = starting.flatMap((result) =>
    result.status === "fulfilled" ? [result.value] : [],
  );
  const failed = starting.find((result) => result.status === "rejected");
  if (failed) {
    await stopAll(servers);
    throw failed.reason;
  }
  return servers;
}

async function waitUntilReady(child: ChildProcess, url: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`no answer from ${url} within ${timeoutMs / 1000} s`);
}

/** Synchronous last resort for process exit: no promise will be awaited any more. */
function killAllNow(): void {
  for (const child of started) {
    if (child.exitCode === null) signalGroup(child, "SIGKILL");
  }
  started.clear();
}

export async function stopAll(servers: DevServer[]): Promise<void> {
  await Promise.all(servers.map((server) => server.stop()));
}

/** What a bench run leaves on disk: its servers' state, and its bundles and logs. */
export interface RunDirs {
  state: string | undefined;
  run?: string | undefined;
}

/**
 * Runs a bench's `main` within `deadlineMs`, and stops every server it
 * started however it ends. A signal removes both directories, the deadline
 * the state only (the logs say what hung); an error is logged and sets the
 * exit code.
 */
export async function runBounded(
  main: () => Promise<void>,
  options: { deadlineMs: number; log: (message: string) => void; dirs: () => RunDirs },
): Promise<void> {
  const { deadlineMs, log, dirs } = options;
  const remove = (...paths: (string | undefined)[]) => {
    for (const dir of paths) if (dir) rmSync(dir, { recursive: true, force: true });
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping the servers`);
      killAllNow();
      remove(dirs().run, dirs().state);
      process.exit(130);
    });
  }
  process.once("exit", killAllNow);
  setTimeout(() => {
    log(`gave up after ${deadlineMs / 1000} s`);
    killAllNow();
    remove(dirs().state);
    process.exit(1);
  }, deadlineMs).unref();
  try {
    await main();
  } catch (error) {
    log(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  } finally {
    killAllNow();
  }
}

/** Each target with the process group of the server it loads, so that server's Worker is metered. */
export function metered(targets: Target[], servers: readonly DevServer[]): Target[] {
  return targets.map((target) => {
    const server = servers.find((candidate) => candidate.origin === target.origin);
    return server ? { ...target, processGroup: server.processGroup } : target;
  });
}

/**
 * The secrets an API Worker is served with, fresh for each run: the
 * operator's token, and the secret that seals its Consistency-Tokens,
 * without which it would skip that work and flatter every row.
 */
export function apiSecrets(): { ADMIN_TOKEN: string; CONSISTENCY_TOKEN_SECRET: string } {
  return {
    ADMIN_TOKEN: randomBytes(24).toString("base64url"),
    CONSISTENCY_TOKEN_SECRET: randomBytes(32).toString("base64url"),
  };
}
