import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, inject } from "vitest";
import { freePort } from "../free-port.ts";
import { signalGroup, stopGroup } from "./process-group.ts";

export const repo = path.resolve(import.meta.dirname, "../..");
const HOST = "127.0.0.1";

/**
 * Keeps wrangler quiet and off the network, and the developer's own ADMIN_TOKEN
 * out. Node keeps what it compiled between the many commands the tests start.
 */
const baseEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  ADMIN_TOKEN: "",
  NODE_COMPILE_CACHE: path.join(tmpdir(), "petstore-test-node-compile-cache"),
};

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export type Command = "key" | "account" | "start";

/**
 * A throwaway project directory: wrangler.toml pointing at this repository's
 * Worker and migrations, its own .dev.vars and its own local state, so the
 * developer's .wrangler state and tokens are never touched.
 */
export interface Sandbox {
  dir: string;
  /** Where `npm start` keeps state when not told otherwise: `.wrangler/state` in `dir`. */
  defaultStateDir: string;
  adminToken: string;
  /** A command run as `npm run key` runs it: this Node, cwd = the project. */
  run(command: Command, args: string[], env?: Record<string, string>): Promise<Run>;
  key(...args: string[]): Promise<Run>;
  account(...args: string[]): Promise<Run>;
  remove(): void;
}

function absolutePaths(toml: string): string {
  const replacements: [RegExp, string][] = [
    [/^main = "src\/index\.ts"$/m, `main = ${JSON.stringify(path.join(repo, "src/index.ts"))}`],
    [
      /^migrations_dir = "migrations"$/gm,
      `migrations_dir = ${JSON.stringify(path.join(repo, "migrations"))}`,
    ],
    [
      /^directory = "dist\/assets"$/m,
      `directory = ${JSON.stringify(path.join(repo, "dist/assets"))}`,
    ],
  ];
  let text = toml;
  for (const [pattern, replacement] of replacements) {
    if (!text.match(pattern)) throw new Error(`wrangler.toml no longer matches ${pattern}`);
    text = text.replace(pattern, replacement);
  }
  return text;
}

export function makeSandbox(): Sandbox {
  const dir = mkdtempSync(path.join(tmpdir(), "petstore-cli-"));
  const adminToken = randomBytes(24).toString("base64url");
  const toml = readFileSync(path.join(repo, "wrangler.toml"), "utf8");
  writeFileSync(path.join(dir, "wrangler.toml"), absolutePaths(toml));
  writeFileSync(
    path.join(dir, ".dev.vars"),
    [
      `ADMIN_TOKEN=${adminToken}`,
      `SESSION_SECRET=${randomBytes(32).toString("base64url")}`,
      `CONSISTENCY_TOKEN_SECRET=${randomBytes(32).toString("base64url")}`,
      "",
    ].join("\n"),
  );
  // `npm run key` and friends work in the sandbox as in the project: the same
  // scripts, run with the project's own Node and tools.
  const scripts = (
    JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const sandboxScripts = Object.fromEntries(
    Object.entries(scripts).map(([name, command]) => [
      name,
      command.replace(/\bnode (src|test)\//g, `node ${repo}/$1/`),
    ]),
  );
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "petstore-sandbox", private: true, scripts: sandboxScripts }),
  );
  symlinkSync(path.join(repo, "node_modules"), path.join(dir, "node_modules"));
  return sandboxIn(dir, adminToken);
}

/** The commands of a sandbox `makeSandbox` wrote, in this process or another. */
function sandboxIn(dir: string, adminToken: string): Sandbox {
  const run = (command: Command, args: string[], env: Record<string, string> = {}) =>
    new Promise<Run>((resolve) => {
      execFile(
        process.execPath,
        [path.join(repo, `src/cli/${command}.ts`), ...args],
        { cwd: dir, env: { ...baseEnv, ...env } },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  return {
    dir,
    defaultStateDir: path.join(dir, ".wrangler/state"),
    adminToken,
    run,
    key: (...args) => run("key", args),
    account: (...args) => run("account", args),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Every `npm start` this file started, so none outlives the test run however it ends. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) signalGroup(child, "SIGKILL");
});

/** A running `npm start` (the real src/cli/start.ts) as its tests see it. */
export interface RunningServer {
  origin: string;
  /** Everything it printed so far. */
  output(): string;
}

/** A running `npm start` this process started. */
export interface LocalServer extends RunningServer {
  /** Where what it prints goes, so a test in another process can read it too. */
  log: string;
  /** The process group it leads: its wrangler and the workerd that runs the Worker. */
  processGroup: number;
  /** Where its Worker's DevTools inspector listens (Chrome DevTools protocol). */
  inspectorPort: number;
  /** Ctrl-C, as a terminal sends it to the whole process group; SIGKILL if it lingers. */
  stop(): Promise<void>;
}

/** A sandbox and the `npm start` serving it, for the tests of a file. */
export interface FileServer {
  readonly sandbox: Sandbox;
  readonly server: RunningServer;
}

/** What the Node project's global setup provides of the `npm start` its files share. */
export interface SharedServer {
  dir: string;
  adminToken: string;
  origin: string;
  log: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    sharedServer: SharedServer;
  }
}

/**
 * The one `npm start` (test/node/shared-server.ts) that files share when
 * their tests need no state, flags or load of their own: each file uses
 * accounts of its own, and the server's start-up is paid once, not per file.
 * It starts beside the first test files; a file waits for it before its first
 * test. A file that floods the server keeps its own: under the flood a
 * command's 3-second look for the local Worker fails in the other files.
 */
export function sharedServer(): FileServer {
  const { dir, adminToken, origin, log } = inject("sharedServer");
  const server = { origin, output: () => readFileSync(log, "utf8") };
  beforeAll(() => untilServing(server));
  return { sandbox: sandboxIn(dir, adminToken), server };
}

/**
 * One real `npm start` in a fresh sandbox for the whole test file: started
 * before its first test, stopped and removed after its last. Read `sandbox`
 * and `server` inside tests, once it has started.
 */
export function serveForFile(): FileServer {
  let sandbox: Sandbox | undefined;
  let server: LocalServer | undefined;
  beforeAll(async () => {
    sandbox = makeSandbox();
    server = await startServer(sandbox);
  });
  afterAll(async () => {
    await server?.stop();
    sandbox?.remove();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("npm start is not running yet: read it inside a test");
    return value;
  };
  return {
    get sandbox() {
      return started(sandbox);
    },
    get server() {
      return started(server);
    },
  };
}

/**
 * `npm start -- --port <free port> --inspector-port <free port> [--persist-to DIR]`
 * in the sandbox, ready once it says it serves. Files start theirs at once, and
 * each would otherwise take the first free port from 9229 for its debugger.
 */
export async function startServer(sandbox: Sandbox, persistTo?: string): Promise<LocalServer> {
  const server = await launchServer(sandbox, persistTo);
  try {
    await untilServing(server);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

/** `startServer` without the wait: the server is still starting when this resolves. */
export async function launchServer(sandbox: Sandbox, persistTo?: string): Promise<LocalServer> {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const args = ["--port", String(port), "--inspector-port", String(inspectorPort)];
  if (persistTo) args.push("--persist-to", persistTo);
  const log = path.join(sandbox.dir, `npm-start-${port}.log`);
  const fd = openSync(log, "a");
  const child = spawn(process.execPath, [path.join(repo, "src/cli/start.ts"), ...args], {
    cwd: sandbox.dir,
    env: baseEnv,
    stdio: ["ignore", fd, fd],
    detached: true,
  });
  closeSync(fd);
  running.add(child);
  const stop = async () => {
    await stopGroup(child, "SIGINT", 10_000);
    running.delete(child);
  };
  const output = () => readFileSync(log, "utf8");
  return {
    origin: `http://${HOST}:${port}`,
    log,
    processGroup: child.pid ?? 0,
    inspectorPort,
    output,
    stop,
  };
}

/** Resolves once the server says it serves; throws with what it said if it ends or takes 90 s. */
async function untilServing(server: RunningServer): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!server.output().includes(`Serving on ${server.origin}`)) {
    const ended = /^error: |\[ERROR\]/m.test(server.output());
    if (ended || Date.now() > deadline) {
      throw new Error(
        `npm start did not come up on ${server.origin}:\n${server.output().slice(-3_000)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * A key made through the admin endpoint the operator command calls, for tests
 * whose subject is another command: each command run is a Node start.
 */
export async function adminKey(
  local: FileServer,
  body: { account?: string; plan?: string; perMinute?: number; perDay?: number } = {},
): Promise<string> {
  const response = await fetch(`${local.server.origin}/admin/keys`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${local.sandbox.adminToken}`,
      "Content-Type": "application/json",
    },
    body: JSON.stringify(body),
  });
  const made = (await response.json()) as { key?: string };
  if (response.status !== 201 || made.key === undefined) {
    throw new Error(`POST /admin/keys answered ${response.status}: ${JSON.stringify(made)}`);
  }
  return made.key;
}

/** GET /v1/pets with the key: its status and the limit it was counted against. */
export async function petsWith(origin: string, key: string) {
  const response = await fetch(`${origin}/v1/pets?limit=1`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  await response.body?.cancel();
  return { status: response.status, limit: response.headers.get("X-RateLimit-Limit") };
}

export function lastLine(text: string): string {
  const lines = text.trimEnd().split("\n");
  return lines[lines.length - 1] ?? "";
}

export function lines(text: string): string[] {
  return text.split("\n").filter((line) => line.length > 0);
}
