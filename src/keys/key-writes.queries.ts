import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { change } from "../changes/change.ts";
import { type Database, millis } from "../db/database.ts";
import { accounts, apiKeys } from "../db/schema.ts";
import type { Plan } from "../rate-limit/plans.ts";
import {
  boundHash,
  type KeyLimits,
  type KeyWithAccount,
  keyNamed,
  MAX_WORKING_KEYS,
  ROLL_GRACE_MS,
  selectWithAccount,
} from "./keys.queries.ts";

/** The keys' writes: each one change, one batch, its rows read back in the same transaction. */

/** SQL that is true while the account has room for one more working key at the bound `now`. */
function underCap(accountId: SQLiteColumn) {
  return sql`(SELECT count(*) FROM ${apiKeys} AS counted
    WHERE counted.account_id = ${accountId} AND counted.revoked_at IS NULL
      AND (counted.expires_at IS NULL OR counted.expires_at > ${sql.placeholder("now")})) < ${MAX_WORKING_KEYS}`;
}

type Selected = SQL.Aliased | SQLiteColumn;

/** The columns of a new key row (bound `hash`, `lastFour`, `now`), for an INSERT … SELECT that adds it only when a condition holds. */
function newKeyColumns(
  limits: { plan: Selected; perMinute: Selected; perDay: Selected },
  accountId: SQLiteColumn,
) {
  return {
    hash: sql<string>`${sql.placeholder("hash")}`.as("hash"),
    accountId,
    lastFour: sql<string>`${sql.placeholder("lastFour")}`.as("last_four"),
    createdAt: sql<number>`${sql.placeholder("now")}`.as("created_at"),
    revokedAt: sql<null>`NULL`.as("revoked_at"),
    expiresAt: sql<null>`NULL`.as("expires_at"),
    plan: limits.plan,
    perMinute: limits.perMinute,
    perDay: limits.perDay,
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
const following = and(
  eq(apiKeys.accountId, sql.placeholder("accountId")),
  isNull(apiKeys.plan),
  isNull(apiKeys.revokedAt),
  sql`(${apiKeys.expiresAt} IS NULL OR ${apiKeys.expiresAt} > ${sql.placeholder("now")})`,
);

/** Adding a key under the cap of working keys, then reading it back. */
const creation = change()
  .step("inserted", (db) =>
    db
      .insert(apiKeys)
      .select(
        db
          .select(
            newKeyColumns(
              {
                plan: boundLimits.plan.as("plan"),
                perMinute: boundLimits.perMinute.as("per_minute"),
                perDay: boundLimits.perDay.as("per_day"),
              },
              accounts.id,
            ),
          )
          .from(accounts)
          .where(and(eq(accounts.id, sql.placeholder("accountId")), underCap(accounts.id))),
      )
      .prepare(),
  )
  .read("key", (db) => keyNamed(db, "hash"));

/** Rolling a key: its successor under the cap, then, only if added, the old key's grace. */
const rolling = change()
  .step("successorAdded", (db) =>
    db
      .insert(apiKeys)
      .select(
        db
          .select(
            newKeyColumns(
              { plan: apiKeys.plan, perMinute: apiKeys.perMinute, perDay: apiKeys.perDay },
              apiKeys.accountId,
            ),
          )
          .from(apiKeys)
          .where(
            and(
              eq(apiKeys.hash, sql.placeholder("oldHash")),
              eq(apiKeys.accountId, sql.placeholder("accountId")),
              isNull(apiKeys.revokedAt),
              isNull(apiKeys.expiresAt),
              underCap(apiKeys.accountId),
            ),
          ),
      )
      .prepare(),
  )
  .step("graceStarted", (db) =>
    db
      .update(apiKeys)
      .set({ expiresAt: millis("graceEnds"), version: nextVersion })
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
}

/**
 * Adds the key only while its account holds fewer than the cap of working
 * keys. Count and insert are one statement, so concurrent creates serialise
 * in the database and the cap holds exactly. Undefined when the cap refused it.
 */
export async function insertKeyUnderCap(
  db: Database,
  key: NewKey,
  now: number,
): Promise<KeyWithAccount | undefined> {
  const values = { hash: key.hash, accountId: key.accountId, lastFour: key.lastFour, now };
  const { results } = await creation.run(db, { ...values, ...key.limits });
  return results.key[0];
}

/**
 * Rolls a working key that has not been rolled: its successor (with the same
 * per-key limits) is added under the cap, and only if it was, the old key's
 * grace period starts. One batch, one transaction: either both or neither.
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
