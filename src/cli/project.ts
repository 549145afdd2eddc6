import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { KeyPrefix } from "../keys/key-format.ts";
import type { RemoteEnvironment } from "./args.ts";

/** Where the operator works from: npm runs scripts in the package root. */
export const projectRoot = (): string => process.cwd();

/** Local D1, KV and Durable Object state, shared by `npm start` and `npm run key`. */
export const LOCAL_STATE_DIR = ".wrangler/state";

export const LOCAL_WORKER_URL = "http://127.0.0.1:8787";

export interface EnvironmentSettings {
  keyPrefix: KeyPrefix;
  /** Origin of the deployed Worker, from STAGING_URL / PRODUCTION_URL. */
  workerOrigin: string;
}

/**
 * Reads an environment's vars from wrangler.toml with wrangler's own reader
 * (loaded only when needed: it is large), so the key prefix and the URLs have
 * one source.
 */
export async function environmentSettings(
  root: string,
  env: RemoteEnvironment | undefined,
): Promise<EnvironmentSettings> {
  const { unstable_readConfig } = await import("wrangler");
  const config = unstable_readConfig(
    { config: path.join(root, "wrangler.toml"), env },
    { hideWarnings: true },
  );
  const vars = config.vars as Record<string, unknown>;
  const prefix = vars.KEY_PREFIX;
  if (prefix !== "ps_live_" && prefix !== "ps_test_") {
    throw new Error(`wrangler.toml: KEY_PREFIX for ${env ?? "local"} must be ps_live_ or ps_test_`);
  }
  const url = env === "production" ? vars.PRODUCTION_URL : vars.STAGING_URL;
  if (env !== undefined && typeof url !== "string") {
    throw new Error(`wrangler.toml: ${env.toUpperCase()}_URL is not set for ${env}`);
  }
  return {
    keyPrefix: prefix,
    workerOrigin: env === undefined ? LOCAL_WORKER_URL : new URL(String(url)).origin,
  };
}

/** KEY=value lines, as wrangler reads .dev.vars (comments and blank lines skipped). */
export function parseDotVars(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    vars.set(match[1], match[2].replace(/^(["'])(.*)\1$/, "$2"));
  }
  return vars;
}

/** ADMIN_TOKEN of the local Worker, from .dev.vars; undefined when there is none. */
export function localAdminToken(root: string): string | undefined {
  const file = path.join(root, ".dev.vars");
  if (!existsSync(file)) return undefined;
  const token = parseDotVars(readFileSync(file, "utf8")).get("ADMIN_TOKEN");
  return token ? token : undefined;
}
