import path from "node:path";
import { keyRecordName } from "../keys/key-format.ts";
import { type KeyRecord, KeyRecordSchema } from "../keys/key-record.ts";
import type { RemoteEnvironment } from "./args.ts";
import { runWrangler } from "./wrangler.ts";

/** Which KV namespace the command works on: local state (optionally elsewhere) or a deployed env. */
export type KvTarget =
  | { kind: "local"; root: string; persistTo: string }
  | { kind: "remote"; root: string; env: RemoteEnvironment };

function locationFlags(target: KvTarget): string[] {
  if (target.kind === "remote") return ["--remote", "--env", target.env];
  return ["--local", "--persist-to", path.resolve(target.root, target.persistTo)];
}

const NOT_FOUND = "Value not found";

/** The key's record, or null when none is stored under its hash. */
export async function readKeyRecord(target: KvTarget, hash: string): Promise<KeyRecord | null> {
  const { stdout } = await runWrangler(
    [
      "kv",
      "key",
      "get",
      keyRecordName(hash),
      "--binding",
      "API_KEYS",
      "--text",
      ...locationFlags(target),
    ],
    target.root,
  );
  const text = stdout.trim();
  if (text === "" || text === NOT_FOUND) return null;
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    throw new Error(`the KV record of this key is not JSON: ${text.slice(0, 80)}`);
  }
  const parsed = KeyRecordSchema.safeParse(stored);
  if (!parsed.success) throw new Error("the KV record of this key does not match KeyRecord");
  return parsed.data;
}

export async function writeKeyRecord(
  target: KvTarget,
  hash: string,
  record: KeyRecord,
): Promise<void> {
  await runWrangler(
    [
      "kv",
      "key",
      "put",
      keyRecordName(hash),
      JSON.stringify(record),
      "--binding",
      "API_KEYS",
      ...locationFlags(target),
    ],
    target.root,
  );
}
