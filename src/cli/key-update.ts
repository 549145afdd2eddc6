import { hashApiKey } from "../keys/key-format.ts";
import type { KeyRecord } from "../keys/key-record.ts";
import { UsageError } from "./args.ts";
import { checkPrefix, checkWellFormed, type Location } from "./key-location.ts";
import { readKeyRecord, writeKeyRecord } from "./kv.ts";
import { environmentSettings, localAdminToken } from "./project.ts";
import { notifyWorker } from "./worker-notify.ts";

export const notifyHelp = `  --url URL                 the running Worker to tell (default http://127.0.0.1:8787 locally,
                            else the environment's STAGING_URL / PRODUCTION_URL origin)`;

export interface Update {
  key: string;
  location: Location;
  url: string | undefined;
  /** The record as it should be; the version is bumped here. */
  change: (record: KeyRecord) => KeyRecord;
  /** Past tense, for the report: "Revoked", "Moved to pro". */
  done: string;
}

function workerOrigin(url: string | undefined, fallback: string): string {
  if (url === undefined) return fallback;
  try {
    return new URL(url).origin;
  } catch {
    throw new UsageError(`--url is not a URL: "${url}"`);
  }
}

/**
 * Reads the key's record, writes the changed one back with a higher version,
 * then tells the running Worker so the change applies from the next request.
 */
export async function updateKey(update: Update): Promise<number> {
  const { location } = update;
  const root = location.target.root;
  checkWellFormed(update.key);
  const settings = await environmentSettings(root, location.env);
  checkPrefix(update.key, settings.keyPrefix, location);
  const origin = workerOrigin(update.url, settings.workerOrigin);

  const hash = await hashApiKey(update.key);
  const record = await readKeyRecord(location.target, hash);
  if (!record) {
    console.error(`error: ${location.label} holds no key with this value`);
    return 1;
  }
  const next = { ...update.change(record), version: Math.max(Date.now(), record.version + 1) };
  await writeKeyRecord(location.target, hash, next);
  console.log(`${update.done}: key ending in ${next.lastFour} (${location.label}).`);

  const later =
    "the change is in KV and reaches running isolates within a few minutes (30 s isolate cache, 60 s KV edge cache, KV propagation)";
  const token = location.env ? process.env.ADMIN_TOKEN : localAdminToken(root);
  if (!token) {
    const where = location.env ? "the ADMIN_TOKEN environment variable" : ".dev.vars";
    console.error(`warning: no ADMIN_TOKEN in ${where} to tell the Worker with; ${later}.`);
    return 0;
  }
  const outcome = await notifyWorker(origin, token, hash, next);
  if (outcome.kind === "unreachable") {
    console.error(
      `warning: the Worker at ${origin} is not reachable (${outcome.reason}); ${later}.`,
    );
    return 0;
  }
  if (outcome.kind === "refused") {
    console.error(
      `error: the Worker at ${origin} refused the change (HTTP ${outcome.status}; check ADMIN_TOKEN); ${later}.`,
    );
    return 1;
  }
  console.log(`The Worker at ${origin} applied it: the next request sees it.`);
  return 0;
}
