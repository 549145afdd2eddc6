import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

const require = createRequire(import.meta.url);

/** wrangler's own entry script, run with this Node (24) rather than whatever is on PATH. */
function wranglerEntry(): string {
  const manifest = require.resolve("wrangler/package.json");
  return path.join(path.dirname(manifest), "bin", "wrangler.js");
}

/**
 * No metrics, no banner with its update notice, and no download of the
 * `request.cf` data, which fails with an error on a machine without network
 * (the Worker gets wrangler's placeholder instead).
 */
function wranglerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_HIDE_BANNER: "true",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    ...extra,
  };
}

/** wrangler dev's own line per request (`[wrangler:info] GET /v1/pets 200 OK (12ms)`). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: wrangler colours its lines with ANSI escapes.
const REQUEST_LINE = /^(?:\x1b\[[0-9;]*m)*\[wrangler:info\](?:\x1b\[[0-9;]*m)* [A-Z]+ \S+ \d{3}\b/;

/** Copies lines from wrangler to the terminal, leaving out its request lines. */
function withoutRequestLines(from: Readable | null, to: Writable): void {
  if (!from) return;
  createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
    if (!REQUEST_LINE.test(line)) to.write(`${line}\n`);
  });
}

export interface SpawnOptions {
  env?: Record<string, string>;
  stdin?: "inherit" | "ignore";
  /**
   * Leave out wrangler's own line per request: the Worker writes one JSON
   * line per request already, with its id, status and duration.
   */
  oneLinePerRequest?: boolean;
}

/** Starts wrangler on the terminal (its request lines left out when asked). */
export function spawnWrangler(
  args: string[],
  cwd: string,
  options: SpawnOptions = {},
): ChildProcess {
  const output = options.oneLinePerRequest ? "pipe" : "inherit";
  const child = spawn(process.execPath, [wranglerEntry(), ...args], {
    cwd,
    env: wranglerEnv(options.env),
    stdio: [options.stdin ?? "inherit", output, output],
  });
  if (options.oneLinePerRequest) {
    withoutRequestLines(child.stdout, process.stdout);
    withoutRequestLines(child.stderr, process.stderr);
  }
  return child;
}
