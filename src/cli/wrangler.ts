import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** wrangler's own entry script, run with this Node (24) rather than whatever is on PATH. */
function wranglerEntry(): string {
  const manifest = require.resolve("wrangler/package.json");
  return path.join(path.dirname(manifest), "bin", "wrangler.js");
}

function wranglerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, WRANGLER_SEND_METRICS: "false", ...extra };
}

/** Starts wrangler on the terminal's own stdio. */
export function spawnWrangler(
  args: string[],
  cwd: string,
  options: { env?: Record<string, string>; stdin?: "inherit" | "ignore" } = {},
): ChildProcess {
  return spawn(process.execPath, [wranglerEntry(), ...args], {
    cwd,
    env: wranglerEnv(options.env),
    stdio: [options.stdin ?? "inherit", "inherit", "inherit"],
  });
}
