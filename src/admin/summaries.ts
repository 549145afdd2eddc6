import { type Account, hasPassword } from "../accounts/accounts.queries.ts";
import { effectiveLimits } from "../keys/key-projection.ts";
import { keyStateOf } from "../keys/key-state.ts";
import type { KeyWithAccount } from "../keys/keys.queries.ts";
import { limitsOf } from "../rate-limit/plans.ts";
import type { AccountSummary, KeySummary } from "./admin.schemas.ts";

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A key as the operator sees it: never the key itself, only its hash and last four. */
export function keySummary(row: KeyWithAccount, now = Date.now()): KeySummary {
  const limits = effectiveLimits(row);
  return {
    hash: row.hash,
    lastFour: row.lastFour,
    account: row.account.email,
    createdAt: row.createdAt.toISOString(),
    status: keyStateOf(row, now),
    revokedAt: iso(row.revokedAt),
    expiresAt: iso(row.expiresAt),
    graceEndsAt: iso(row.graceEndsAt),
    scopes: row.scopes,
    allowedRanges: row.allowedRanges,
    limitsFrom: row.plan ? "key" : "account",
    plan: row.plan ?? row.account.plan,
    ...limits,
  };
}

export function accountSummary(account: Account): AccountSummary {
  return {
    email: account.email,
    plan: account.plan,
    ...limitsOf(account.plan, account),
    hasPassword: hasPassword(account),
    createdAt: account.createdAt.toISOString(),
  };
}
