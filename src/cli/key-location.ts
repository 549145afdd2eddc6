import { isWellFormedKey } from "../keys/key-format.ts";
import { parseEnvironment, type RemoteEnvironment, UsageError } from "./args.ts";
import type { KvTarget } from "./kv.ts";
import { LOCAL_STATE_DIR, projectRoot } from "./project.ts";

/** Options every subcommand shares: where the key lives. */
export const locationOptions = {
  env: { type: "string" },
  "persist-to": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export const locationHelp = `  --env staging|production  work on that deployed environment (remote KV); default: local
  --persist-to DIR          local state directory (default ${LOCAL_STATE_DIR}); local only
  -h, --help                show this help`;

export interface Location {
  env: RemoteEnvironment | undefined;
  target: KvTarget;
  /** For messages: "local KV" or "staging KV". */
  label: string;
}

export function locationOf(values: { env?: string; "persist-to"?: string }): Location {
  const env = parseEnvironment(values.env);
  const root = projectRoot();
  if (env !== undefined) {
    if (values["persist-to"] !== undefined) {
      throw new UsageError("--persist-to is for local state; it cannot go with --env");
    }
    return { env, target: { kind: "remote", root, env }, label: `${env} KV` };
  }
  const persistTo = values["persist-to"] ?? LOCAL_STATE_DIR;
  if (persistTo === "") throw new UsageError("--persist-to needs a directory");
  return { env, target: { kind: "local", root, persistTo }, label: "local KV" };
}

export function checkWellFormed(key: string): void {
  if (!isWellFormedKey(key)) {
    throw new UsageError(
      "not a well-formed API key (ps_live_ or ps_test_ then 32 letters and digits)",
    );
  }
}

/** Refuses a key whose prefix does not belong to the environment. */
export function checkPrefix(key: string, expectedPrefix: string, location: Location): void {
  if (!key.startsWith(expectedPrefix)) {
    throw new UsageError(`${location.label} holds ${expectedPrefix} keys; this key is not one`);
  }
}
