import { limitsOf } from "../rate-limit/plans.ts";
import type { KeyPolicy } from "../rate-limit/rate-limit-types.ts";
import type { KeyRecord } from "./key-record.ts";
import { workingUntil } from "./key-state.ts";
import type { KeyWithAccount } from "./keys.queries.ts";

/** The limits in force for a key: its own, where an operator set them, else its account's plan. */
export function effectiveLimits(row: KeyWithAccount) {
  return row.plan ? limitsOf(row.plan, row) : limitsOf(row.account.plan, row.account);
}

/** The KV record of a key, made from its row: the only way such a record is made. */
export function keyRecordOf(row: KeyWithAccount): KeyRecord {
  const record: KeyRecord = {
    version: row.version,
    accountId: row.accountId,
    lastFour: row.lastFour,
    limits: effectiveLimits(row),
    revoked: row.revokedAt !== null,
    scopes: row.scopes,
  };
  const until = workingUntil(row);
  if (until) record.expiresAt = until.getTime();
  if (row.allowedRanges) record.allowedRanges = row.allowedRanges;
  return record;
}

/** What the key's Durable Object needs to decide a request: everything but the last four and the account. */
export function policyOf({
  lastFour: _lastFour,
  accountId: _accountId,
  ...policy
}: KeyRecord): KeyPolicy {
  return policy;
}
