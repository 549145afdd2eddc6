import type { Database } from "../db/database.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import { ExpiringCache } from "../utils/expiring-cache.ts";
import { keyRecordName } from "./key-format.ts";
import { keyRecordOf, keyRecordOfLegacy } from "./key-projection.ts";
import {
  type KeyRecord,
  KeyRecordSchema,
  type LegacyKeyRecord,
  LegacyKeyRecordSchema,
} from "./key-record.ts";
import { findKeyWithAccount } from "./keys.queries.ts";

/**
 * Per-isolate cache of key records, so a hot key costs no KV read. A record
 * may be older than this TTL (KV's own edge cache and propagation add to it);
 * revocations and plan changes reach requests at once through the key's
 * Durable Object, which keeps the newest policy. A null entry is a hash no
 * key has: guessing costs one D1 read per isolate and TTL, not one per request.
 */
const cache = new ExpiringCache<string, KeyRecord | null>(1_000, 30_000);

function parseStored(stored: unknown): KeyRecord | null {
  const current = KeyRecordSchema.safeParse(stored);
  if (current.success) return current.data;
  const legacy = LegacyKeyRecordSchema.safeParse(stored);
  return legacy.success ? keyRecordOfLegacy(legacy.data) : null;
}

/** Where the hot path reads keys, and where the one module that changes keys writes them. */
export interface KeyStore {
  /** The key's record: this isolate's cache, else KV, else its D1 row; null when no key has this hash. */
  find(hash: string): Promise<KeyRecord | null>;
  /** Writes the KV record; only the module that changes keys calls this, with a record made from the row. */
  save(hash: string, record: KeyRecord): Promise<void>;
  /** Remembers in this isolate that the key is dead, as its Durable Object said. */
  rememberDead(hash: string, record: KeyRecord): void;
  /** One page of KV records still in the shape the operator command wrote before D1 held keys. */
  listLegacy(cursor: string | undefined, limit: number): Promise<LegacyPage>;
}

export interface LegacyPage {
  records: { hash: string; legacy: LegacyKeyRecord }[];
  /** Where the next page starts; undefined after the last. */
  cursor: string | undefined;
}

const RECORD_PREFIX = keyRecordName("");

export function keyStore(kv: KVNamespace, db: Database): KeyStore {
  return {
    async find(hash) {
      const now = Date.now();
      const cached = cache.get(hash, now);
      if (cached !== undefined) return cached;
      const stored = await guardStorage("KV", () =>
        kv.get(keyRecordName(hash), { type: "json", cacheTtl: 60 }),
      );
      let record = parseStored(stored);
      // A new key's record may not have reached this location yet, or KV cached its absence.
      if (!record) {
        const row = await findKeyWithAccount(db, hash);
        record = row ? keyRecordOf(row) : null;
      }
      cache.set(hash, record, now);
      return record;
    },
    async save(hash, record) {
      await guardStorage("KV", () => kv.put(keyRecordName(hash), JSON.stringify(record)));
      cache.delete(hash);
    },
    rememberDead(hash, record) {
      cache.set(hash, { ...record, revoked: true }, Date.now());
    },
    async listLegacy(cursor, limit) {
      const page = await guardStorage("KV", () =>
        kv.list({ prefix: RECORD_PREFIX, limit, ...(cursor ? { cursor } : {}) }),
      );
      const records = await Promise.all(
        page.keys.map(async ({ name }) => {
          const stored = await guardStorage("KV", () => kv.get(name, "json"));
          const legacy = LegacyKeyRecordSchema.safeParse(stored);
          return legacy.success
            ? { hash: name.slice(RECORD_PREFIX.length), legacy: legacy.data }
            : null;
        }),
      );
      return {
        records: records.filter((record) => record !== null),
        cursor: page.list_complete ? undefined : page.cursor,
      };
    },
  };
}
