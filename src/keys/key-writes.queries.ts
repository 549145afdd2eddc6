import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { change } from "../changes/change.ts";
import { type Database, millis } from "../db/database.ts";
import { insertWhere } from "../db/insert-where.ts";
import { accounts, apiKeys } from "../db/schema.ts";
import type { Plan } from "../rate-limit/plans.ts";
import type { Scope } from "../scopes.ts";
import {
  boundHash,
  type KeyLimits,
  type KeyWithAccount,
  keyNamed,
  ROLL_GRACE_MS,
  selectWithAccount,
  WORKING_KEYS_BY_PLAN,
} from "./keys.queries.ts";

/** The keys' writes: each one change, one batch, its rows read back in the same transaction. */

const stillWorks = (key: typeof apiKeys) =>
  sql`(${key.expiresAt} IS NULL OR ${key.expiresAt} > ${sql.placeholder("now")})`;

/** Each plan's cap of working keys, as SQL over the account's plan column. */
const capOfPlan = sql`CASE ${accounts.plan} ${sql.raw(
  Object.entries(WORKING_KEYS_BY_PLAN)
    .map(([plan, cap]) => `WHEN '${plan}' THEN ${cap}`)
    .join(" "),
)} END`;

/**
 * SQL that is true while the account (the row of `accounts` in the statement)
 * has room under its plan's cap for one more working key at the bound `now`:
 * keys neither revoked, nor expired, nor rolled (a roll never counts).
 */
const underCap = sql`(SELECT count(*) FROM ${apiKeys} AS counted
    WHERE counted.account_id = ${accounts.id} AND counted.revoked_at IS NULL
      AND counted.grace_ends_at IS NULL
      AND (counted.expires_at IS NULL OR counted.expires_at > ${sql.placeholder("now")})) < ${capOfPlan}`;

type Selected = SQL.Aliased | SQLiteColumn;

/** What a new key takes from elsewhere: its limits and restrictions, bound or copied from the key it succeeds. */
interface Inherited {
  accountId: SQLiteColumn;
  expiresAt: Selected;
  scopes: Selected;
  allowedRanges: Selected;
  plan: Selected;
  perMinute: Selected;
  perDay: Selected;
}

const bound = <T>(name: string, column: string) => sql<T>`${sql.placeholder(name)}`.as(column);

/**
 * The columns of a new key row (bound `hash`, `lastFour`, `now`), in the
 * table's order, for an INSERT … SELECT that adds it only when a condition holds.
 */
function newKeyColumns(inherited: Inherited) {
  return {
    hash: bound<string>("hash", "hash"),
    accountId: inherited.accountId,
    lastFour: bound<string>("lastFour", "last_four"),
    createdAt: bound<number>("now", "created_at"),
    revokedAt: sql<null>`NULL`.as("revoked_at"),
    expiresAt: inherited.expiresAt,
    graceEndsAt: sql<null>`NULL`.as("grace_ends_at"),
    scopes: inherited.scopes,
    allowedRanges: inherited.allowedRanges,
    plan: inherited.plan,
    perMinute: inherited.perMinute,
    perDay: inherited.perDay,
    version: sql<number>`1`.as("version"),
    syncedVersion: sql<number>`0`.as("synced_version"),
  };
}

const nextVersion = sql`${apiKeys.version} + 1`;
const boundLimits = {
  plan: sql`${sql.placeholder("plan")}`,
  perMinute: sql`${sql.placeholder("perMinute")}`,
  perDay: sql`${sql.placeholder("perDay")}`,
};
/** The working keys (a rolled one in its grace included) that follow the bound account's plan. */
const following = and(
  eq(apiKeys.accountId, sql.placeholder("accountId")),
  isNull(apiKeys.plan),
  isNull(apiKeys.revokedAt),
  sql`(${apiKeys.graceEndsAt} IS NULL OR ${apiKeys.graceEndsAt} > ${sql.placeholder("now")})`,
  stillWorks(apiKeys),
);

/** Adding a key under its account's cap of working keys, then reading it back. */
const creation = change()
  .step("inserted", (db) =>
    insertWhere(db, apiKeys, {
      row: newKeyColumns({
        accountId: accounts.id,
        expiresAt: bound<number | null>("expiresAt", "expires_at"),
        scopes: bound<string>("scopes", "scopes"),
        allowedRanges: bound<string | null>("allowedRanges", "allowed_ranges"),
        plan: bound<Plan | null>("plan", "plan"),
        perMinute: bound<number | null>("perMinute", "per_minute"),
        perDay: bound<number | null>("perDay", "per_day"),
      }),
      from: accounts,
      where: and(eq(accounts.id, sql.placeholder("accountId")), underCap),
    }).prepare(),
  )
  .read("key", (db) => keyNamed(db, "hash"));

/**
 * Rolling a working key that was never rolled: its successor, with its
 * limits, scopes, ranges and expiry, then, only if added, the old key's
 * grace. A roll replaces a working key, so the cap does not apply.
 */
const rolling = change()
  .step("successorAdded", (db) =>
    insertWhere(db, apiKeys, {
      row: newKeyColumns({
        accountId: apiKeys.accountId,
        expiresAt: apiKeys.expiresAt,
        scopes: apiKeys.scopes,
        allowedRanges: apiKeys.allowedRanges,
        plan: apiKeys.plan,
        perMinute: apiKeys.perMinute,
        perDay: apiKeys.perDay,
      }),
      from: apiKeys,
      where: and(
        eq(apiKeys.hash, sql.placeholder("oldHash")),
        eq(apiKeys.accountId, sql.placeholder("accountId")),
        isNull(apiKeys.revokedAt),
        isNull(apiKeys.graceEndsAt),
        stillWorks(apiKeys),
      ),
    }).prepare(),
  )
  .step("graceStarted", (db) =>
    db
      .update(apiKeys)
      .set({ graceEndsAt: millis("graceEnds"), version: nextVersion })
      .where(
        and(
          eq(apiKeys.hash, sql.placeholder("oldHash")),
          sql`EXISTS (SELECT 1 FROM ${apiKeys} AS successor WHERE successor.hash = ${boundHash})`,
        ),
      )
      .prepare(),
  )
  .read("old", (db) => keyNamed(db, "oldHash"))
  .read("successor", (db) => keyNamed(db, "hash"));

const revocation = change()
  .step("revoked", (db) =>
    db
      .update(apiKeys)
      .set({ revokedAt: millis("now"), version: nextVersion })
      .where(and(eq(apiKeys.hash, boundHash), isNull(apiKeys.revokedAt)))
      .prepare(),
  )
  .read("key", (db) => keyNamed(db, "hash"));

const limitsSetting = change()
  .step("limitsSet", (db) =>
    db
      .update(apiKeys)
      .set({ ...boundLimits, version: nextVersion })
      .where(eq(apiKeys.hash, boundHash))
      .prepare(),
  )
  .read("key", (db) => keyNamed(db, "hash"));

/** An account's plan, and the version of every key following it, then those keys. */
const planSetting = change()
  .step("planSet", (db) =>
    db
      .update(accounts)
      .set(boundLimits)
      .where(eq(accounts.id, sql.placeholder("accountId")))
      .prepare(),
  )
  .step("versionsMoved", (db) =>
    db.update(apiKeys).set({ version: nextVersion }).where(following).prepare(),
  )
  .read("keys", (db) => selectWithAccount(db).where(following).prepare());

interface NewKey {
  hash: string;
  accountId: number;
  lastFour: string;
  limits: KeyLimits;
  scopes: readonly Scope[];
  /** Unix milliseconds; null for a key that does not expire. */
  expiresAt: number | null;
  /** Null for a key any address may use. */
  allowedRanges: readonly string[] | null;
}

/**
 * Adds the key only while its account holds fewer working keys than its
 * plan's cap. Count and insert are one statement, so concurrent creates
 * serialise in the database and the cap holds exactly. Undefined when the
 * cap refused it.
 */
export async function insertKeyUnderCap(
  db: Database,
  key: NewKey,
  now: number,
): Promise<KeyWithAccount | undefined> {
  const { results } = await creation.run(db, {
    hash: key.hash,
    accountId: key.accountId,
    lastFour: key.lastFour,
    now,
    expiresAt: key.expiresAt,
    scopes: JSON.stringify(key.scopes),
    allowedRanges: key.allowedRanges && JSON.stringify(key.allowedRanges),
    ...key.limits,
  });
  return results.key[0];
}

/**
 * Rolls a working key that has not been rolled: its successor (with the same
 * limits, scopes, ranges and expiry) is added, and only if it was, the old
 * key's grace period starts. One batch, one transaction: either both or neither.
 */
export async function rollKeyOnce(
  db: Database,
  roll: { oldHash: string; accountId: number; newHash: string; newLastFour: string },
  now: number,
): Promise<{ old: KeyWithAccount | undefined; successor: KeyWithAccount | undefined }> {
  const values = {
    oldHash: roll.oldHash,
    accountId: roll.accountId,
    hash: roll.newHash,
    lastFour: roll.newLastFour,
    now,
    graceEnds: now + ROLL_GRACE_MS,
  };
  const { results } = await rolling.run(db, values);
  return { old: results.old[0], successor: results.successor[0] };
}

/**
 * Sets the revocation once; a revoked key keeps its first revocation time and
 * nothing ever clears it. The row is returned either way, so repeating a
 * revocation whose stores lagged can finish it.
 */
export async function revokeKeyOnce(
  db: Database,
  hash: string,
  now: number,
): Promise<KeyWithAccount | undefined> {
  const { results } = await revocation.run(db, { hash, now });
  return results.key[0];
}

/** Sets (or, with a null plan, clears) the limits of one key. */
export async function setKeyLimits(
  db: Database,
  hash: string,
  limits: KeyLimits,
): Promise<KeyWithAccount | undefined> {
  const { results } = await limitsSetting.run(db, { hash, ...limits });
  return results.key[0];
}

/**
 * Changes an account's plan and, in the same transaction, moves on the
 * version of every working key that follows it, so their Durable Objects
 * adopt the new limits. Returns those keys.
 */
export async function setAccountPlan(
  db: Database,
  accountId: number,
  limits: { plan: Plan; perMinute: number | null; perDay: number | null },
  now: number,
): Promise<KeyWithAccount[]> {
  const { results } = await planSetting.run(db, { accountId, ...limits, now });
  return results.keys;
}
