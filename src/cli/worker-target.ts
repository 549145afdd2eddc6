import path from "node:path";
import { type AdminClient, adminClient } from "./admin-client.ts";
import { parseEnvironment, type RemoteEnvironment, UsageError } from "./args.ts";
import { findLocalServer } from "./local-server.ts";
import { deployedOrigin, LOCAL_STATE_DIR, localAdminToken } from "./project.ts";

/** Options every subcommand that talks to a Worker shares: which one. */
export const targetOptions = {
  url: { type: "string" },
  env: { type: "string" },
  "persist-to": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export const targetHelp = `  --url URL                 talk to the Worker at URL (its origin) instead of the local one
  --env staging|production  talk to that environment's Worker (STAGING_URL / PRODUCTION_URL
                            in wrangler.toml), with ADMIN_TOKEN from the environment
  --persist-to DIR          find the local Worker \`npm start -- --persist-to DIR\` serves
                            (default ${LOCAL_STATE_DIR})
  -h, --help                show this help

Without --url or --env it talks to the Worker \`npm start\` serves, on whatever
port, with ADMIN_TOKEN from .dev.vars (ADMIN_TOKEN in the environment wins).`;

export type Target =
  | { kind: "local"; stateDir: string }
  | { kind: "url"; origin: string }
  | { kind: "env"; env: RemoteEnvironment };

interface TargetValues {
  url?: string | undefined;
  env?: string | undefined;
  "persist-to"?: string | undefined;
}

/** Which Worker the options name, checked before anything is sent. */
export function targetOf(values: TargetValues): Target {
  const env = parseEnvironment(values.env);
  const persistTo = values["persist-to"];
  if (persistTo !== undefined && (env !== undefined || values.url !== undefined)) {
    throw new UsageError("--persist-to finds the local Worker; it cannot go with --url or --env");
  }
  if (env !== undefined && values.url !== undefined) {
    throw new UsageError("--url and --env both name the Worker; give one of them");
  }
  if (values.url !== undefined) {
    const url = URL.canParse(values.url) ? new URL(values.url) : undefined;
    if (url?.protocol !== "http:" && url?.protocol !== "https:") {
      throw new UsageError(`--url must be an http(s) URL, got "${values.url}"`);
    }
    // The operator token travels with every call: in the clear only to this machine.
    if (url.protocol === "http:" && !LOOPBACK.has(url.hostname)) {
      throw new UsageError(`--url must use https unless it is this machine, got "${values.url}"`);
    }
    return { kind: "url", origin: url.origin };
  }
  if (env !== undefined) {
    if (!process.env.ADMIN_TOKEN) {
      throw new UsageError(`--env ${env} needs ADMIN_TOKEN (${env}'s secret) in the environment`);
    }
    return { kind: "env", env };
  }
  if (persistTo === "") throw new UsageError("--persist-to needs a directory");
  return { kind: "local", stateDir: persistTo ?? LOCAL_STATE_DIR };
}

/** The token for a Worker named locally or by --url: the environment's, else .dev.vars's. */
function localToken(root: string): { token: string; tokenSource: string } {
  if (process.env.ADMIN_TOKEN) {
    return { token: process.env.ADMIN_TOKEN, tokenSource: "the ADMIN_TOKEN environment variable" };
  }
  const token = localAdminToken(root);
  if (!token) {
    throw new Error(
      "no ADMIN_TOKEN in .dev.vars or the environment; `npm start` creates .dev.vars with one",
    );
  }
  return { token, tokenSource: "ADMIN_TOKEN in .dev.vars" };
}

function notServing(stateDir: string): Error {
  const start =
    stateDir === LOCAL_STATE_DIR ? "`npm start`" : `\`npm start -- --persist-to ${stateDir}\``;
  return new Error(
    `no local Worker is running (none serves ${stateDir}); start one with ${start}, or pass --url URL`,
  );
}

/** Finds the Worker the target names and its token; fails in one line when none answers. */
export async function connect(target: Target, root: string): Promise<AdminClient> {
  switch (target.kind) {
    case "local": {
      const origin = await findLocalServer(path.resolve(root, target.stateDir));
      if (origin === undefined) throw notServing(target.stateDir);
      const unreachableHint = "start one with `npm start`, or pass --url URL";
      return adminClient({ origin, ...localToken(root), unreachableHint });
    }
    case "url": {
      const unreachableHint = "check --url, or start a local Worker with `npm start`";
      return adminClient({ origin: target.origin, ...localToken(root), unreachableHint });
    }
    case "env":
      return adminClient({
        origin: await deployedOrigin(root, target.env),
        token: process.env.ADMIN_TOKEN ?? "",
        tokenSource: "the ADMIN_TOKEN environment variable",
        unreachableHint: `is ${target.env} deployed (\`npm run deploy:${target.env}\`)?`,
      });
  }
}
