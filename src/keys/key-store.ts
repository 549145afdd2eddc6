import { atPrimary, type Database } from "../db/database.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import { ExpiringCache } from "../utils/expiring-cache.ts";
import { keyRecordName } from "./key-format.ts";
import { keyRecordOf } from "./key-projection.ts";
import { type KeyRecord, KeyRecordSchema } from "./key-record.ts";
import { findKeyWithAccount } from "./keys.queries.ts";

/**
 * Per-isolate cache of key records, so a key seen in the last ten minutes
 * costs no KV read. A stale record is harmless: revocations and plan changes
 * reach requests through the key's Durable Object (within the second a share
 * of its budget lives), which keeps the newest policy whatever version a
 * request brings, and the rest of a record (the key's last four characters)
 * never changes. 20,000 records of a
 * few hundred bytes bound it to a few megabytes, enough that ten thousand
 * keys taking turns stay cached.
 */
const known = new ExpiringCache<string, KeyRecord>(20_000, 10 * 60_000);

/**
 * Hashes no key has, kept apart so they never push real keys out: a client
 * that keeps sending one wrong key costs one KV and one D1 read per isolate
 * and TTL. (Guesses that never repeat cost both each time; the IP budget
 * refuses them with 429.)
 */
const unknown = new ExpiringCache<string, true>(1_000, 30_000);

/** Where the hot path reads keys, and where the one module that changes keys writes them. */
export interface KeyStore {
  /** The key's record: this isolate's cache, else KV, else its D1 row; null when no key has this hash. */
  find(hash: string): Promise<KeyRecord | null>;
  /** Writes the KV record; only the module that changes keys calls this, with a record made from the row. */
  save(hash: string, record: KeyRecord): Promise<void>;
  /** Remembers in this isolate that the key is dead, as its Durable Object said. */
  rememberDead(hash: string, record: KeyRecord): void;
}

export function keyStore(kv: KVNamespace, db: Database): KeyStore {
  return {
    async find(hash) {
      const now = Date.now();
      const cached = known.get(hash, now);
      if (cached) return cached;
      if (unknown.get(hash, now)) return null;
      const stored = await guardStorage("KV", () =>
        kv.get(keyRecordName(hash), { type: "json", cacheTtl: 60 }),
      );
      const parsed = KeyRecordSchema.safeParse(stored);
      let found = parsed.success ? parsed.data : null;
      // A new key's record may not have reached this location yet, or KV cached its absence:
      // the primary decides, since a replica may not have the new key's row yet either.
      if (!found) {
        const row = await findKeyWithAccount(atPrimary(db), hash);
        found = row ? keyRecordOf(row) : null;
      }
      if (found) known.set(hash, found, now);
      else unknown.set(hash, true, now);
      return found;
    },
    async save(hash, record) {
      await guardStorage("KV", () => kv.put(keyRecordName(hash), JSON.stringify(record)));
      known.delete(hash);
      unknown.delete(hash);
    },
    rememberDead(hash, record) {
      known.set(hash, { ...record, revoked: true }, Date.now());
    },
  };
}
