import { guardStorage } from "../storage/storage-guard.ts";
import { keyRecordName } from "./key-format.ts";
import { type KeyRecord, KeyRecordSchema } from "./key-record.ts";

const CACHE_TTL_MS = 30_000;
const CACHE_MAX_ENTRIES = 1_000;

interface CachedRecord {
  record: KeyRecord;
  expiresAt: number;
}

/**
 * Per-isolate cache of key records, so a hot key costs no KV read. A record
 * may be older than this TTL (KV's own edge cache and propagation add to it);
 * revocations and plan changes reach requests at once through the key's
 * Durable Object, which keeps the newest policy.
 */
const cache = new Map<string, CachedRecord>();

function remember(hash: string, record: KeyRecord, now: number): void {
  if (cache.size >= CACHE_MAX_ENTRIES) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(hash, { record, expiresAt: now + CACHE_TTL_MS });
}

export async function findKeyRecord(kv: KVNamespace, hash: string): Promise<KeyRecord | null> {
  const now = Date.now();
  const cached = cache.get(hash);
  if (cached && cached.expiresAt > now) return cached.record;
  cache.delete(hash);
  const stored = await guardStorage("KV", () =>
    kv.get(keyRecordName(hash), { type: "json", cacheTtl: 60 }),
  );
  const parsed = KeyRecordSchema.safeParse(stored);
  if (!parsed.success) return null;
  remember(hash, parsed.data, now);
  return parsed.data;
}

export async function saveKeyRecord(
  kv: KVNamespace,
  hash: string,
  record: KeyRecord,
): Promise<void> {
  await kv.put(keyRecordName(hash), JSON.stringify(record));
  cache.delete(hash);
}
