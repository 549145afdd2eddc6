import { limitsOf } from "../rate-limit/plans.ts";
import type { KeyPolicy } from "../rate-limit/rate-limit-types.ts";
import type { KeyRecord, LegacyKeyRecord } from "./key-record.ts";
import type { KeyWithAccount } from "./keys.queries.ts";

/** The limits in force for a key: its own, where an operator set them, else its account's plan. */
export function effectiveLimits(row: KeyWithAccount) {
  return row.plan ? limitsOf(row.plan, row) : limitsOf(row.account.plan, row.account);
}

/** The KV record of a key, made from its row: the only way such a record is made. */
export function keyRecordOf(row: KeyWithAccount): KeyRecord {
  const record: KeyRecord = {
    version: row.version,
    lastFour: row.lastFour,
    limits: effectiveLimits(row),
    revoked: row.revokedAt !== null,
  };
  if (row.expiresAt) record.expiresAt = row.expiresAt.getTime();
  return record;
}

/** A record the operator command wrote before D1 held keys, read as today's shape. */
export function keyRecordOfLegacy(legacy: LegacyKeyRecord): KeyRecord {
  const record: KeyRecord = {
    version: legacy.version,
    lastFour: legacy.lastFour,
    limits: limitsOf(legacy.plan, {
      perMinute: legacy.limits?.perMinute ?? null,
      perDay: legacy.limits?.perDay ?? null,
    }),
    revoked: legacy.revoked,
  };
  if (legacy.expiresAt !== undefined) record.expiresAt = Date.parse(legacy.expiresAt);
  return record;
}

/** What the key's Durable Object needs to decide a request: everything but the last four. */
export function policyOf({ lastFour: _lastFour, ...policy }: KeyRecord): KeyPolicy {
  return policy;
}
