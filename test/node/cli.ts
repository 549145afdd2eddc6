import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";

const repo = path.resolve(import.meta.dirname, "../..");
const wranglerBin = path.join(
  path.dirname(createRequire(import.meta.url).resolve("wrangler/package.json")),
  "bin",
  "wrangler.js",
);

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, ...args],
      { cwd, env: { ...process.env, WRANGLER_SEND_METRICS: "false", ADMIN_TOKEN: "" } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * A throwaway project directory: a copy of wrangler.toml and its own
 * .dev.vars, with local state kept inside it, so the developer's .wrangler
 * state and tokens are never touched.
 */
export interface Sandbox {
  dir: string;
  stateDir: string;
  adminToken: string;
  /** The operator command, run as `npm run key` runs it (this Node, cwd = the project). */
  key(...args: string[]): Promise<Run>;
  start(...args: string[]): Promise<Run>;
  /** The raw KV value under a key's record name, or null. */
  storedRecord(key: string): Promise<unknown>;
  remove(): void;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function makeSandbox(): Sandbox {
  const dir = mkdtempSync(path.join(tmpdir(), "petstore-cli-"));
  const stateDir = path.join(dir, "state");
  const adminToken = "node-test-admin-token";
  copyFileSync(path.join(repo, "wrangler.toml"), path.join(dir, "wrangler.toml"));
  writeFileSync(path.join(dir, ".dev.vars"), `ADMIN_TOKEN=${adminToken}\n`);
  return {
    dir,
    stateDir,
    adminToken,
    key: (...args) => run(path.join(repo, "src/cli/key.ts"), args, dir),
    start: (...args) => run(path.join(repo, "src/cli/start.ts"), args, dir),
    async storedRecord(key) {
      const name = `key:${sha256Hex(key)}`;
      const args = ["kv", "key", "get", name, "--binding", "API_KEYS", "--text"];
      const { code, stdout, stderr } = await run(
        wranglerBin,
        [...args, "--local", "--persist-to", stateDir],
        dir,
      );
      if (code !== 0) throw new Error(`wrangler kv key get failed: ${stderr}`);
      const text = stdout.trim();
      return text === "Value not found" ? null : JSON.parse(text);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function lastLine(text: string): string {
  const lines = text.trimEnd().split("\n");
  return lines[lines.length - 1] ?? "";
}

export function lines(text: string): string[] {
  return text.split("\n").filter((line) => line.length > 0);
}
