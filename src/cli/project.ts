import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { RemoteEnvironment } from "./args.ts";

/** Where the operator works from: npm runs scripts in the package root. */
export const projectRoot = (): string => process.cwd();

/** Local D1, KV and Durable Object state, served by `npm start`. */
export const LOCAL_STATE_DIR = ".wrangler/state";

/**
 * The public origin of a deployed environment, from its STAGING_URL /
 * PRODUCTION_URL var in wrangler.toml, read with wrangler's own reader
 * (loaded only when needed: it is large) so the URLs have one source.
 */
export async function deployedOrigin(root: string, env: RemoteEnvironment): Promise<string> {
  const { unstable_readConfig } = await import("wrangler");
  const config = unstable_readConfig(
    { config: path.join(root, "wrangler.toml"), env },
    { hideWarnings: true },
  );
  const name = env === "production" ? "PRODUCTION_URL" : "STAGING_URL";
  const url = (config.vars as Record<string, unknown>)[name];
  if (typeof url !== "string" || !URL.canParse(url)) {
    throw new Error(`wrangler.toml sets no ${name} URL for ${env}`);
  }
  return new URL(url).origin;
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
