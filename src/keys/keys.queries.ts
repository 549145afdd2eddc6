import {
  and,
  desc,
  eq,
  getTableColumns,
  isNull,
  lt,
  type Placeholder,
  type SQL,
  sql,
} from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Database } from "../db/database.ts";
import { accounts, apiKeys } from "../db/schema.ts";
import type { Plan } from "../rate-limit/plans.ts";
import { guardStorage } from "../storage/storage-guard.ts";

/** Keys an account may hold at once that still work (not revoked, not past a roll's grace). */
export const MAX_WORKING_KEYS = 20;

/** How long a rolled key keeps working beside its successor. */
export const ROLL_GRACE_MS = 24 * 60 * 60 * 1000;

export type KeyRow = typeof apiKeys.$inferSelect;

/** A key's row with what its limits may follow: the plan of the account it belongs to. */
export interface KeyWithAccount extends KeyRow {
  account: {
    id: number;
    email: string;
    plan: Plan;
    perMinute: number | null;
    perDay: number | null;
  };
}

/** Limits an operator sets on one key; a null plan makes the key follow its account. */
export interface KeyLimits {
  plan: Plan | null;
  perMinute: number | null;
  perDay: number | null;
}

/**
 * A key's columns and its account's. The account's are aliased because D1
 * answers a batch with rows keyed by column name, where `accounts.plan`
 * would overwrite `api_keys.plan`.
 */
const withAccount = {
  ...getTableColumns(apiKeys),
  account: {
    id: sql<number>`${accounts.id}`.as("account_id_"),
    email: sql<string>`${accounts.email}`.as("account_email"),
    plan: sql<Plan>`${accounts.plan}`.as("account_plan"),
    perMinute: sql<number | null>`${accounts.perMinute}`.as("account_per_minute"),
    perDay: sql<number | null>`${accounts.perDay}`.as("account_per_day"),
  },
};

function selectWithAccount(db: Database) {
  return db
    .select(withAccount)
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId));
}

/** SQL that is true while the account has room for one more working key at `now`. */
function underCap(accountId: SQLiteColumn | number, now: number) {
  return sql`(SELECT count(*) FROM ${apiKeys} AS counted
    WHERE counted.account_id = ${accountId} AND counted.revoked_at IS NULL
      AND (counted.expires_at IS NULL OR counted.expires_at > ${now})) < ${MAX_WORKING_KEYS}`;
}

type Selected = SQL.Aliased | SQLiteColumn;

/** The columns of a new key row, for an INSERT … SELECT that adds it only when a condition holds. */
function newKeyColumns(
  key: { hash: string; lastFour: string; now: number },
  limits: { plan: Selected; perMinute: Selected; perDay: Selected },
  accountId: SQLiteColumn,
) {
  return {
    hash: sql<string>`${key.hash}`.as("hash"),
    accountId,
    lastFour: sql<string>`${key.lastFour}`.as("last_four"),
    createdAt: sql<number>`${key.now}`.as("created_at"),
    revokedAt: sql<null>`NULL`.as("revoked_at"),
    expiresAt: sql<null>`NULL`.as("expires_at"),
    plan: limits.plan,
    perMinute: limits.perMinute,
    perDay: limits.perDay,
    version: sql<number>`1`.as("version"),
    syncedVersion: sql<number>`0`.as("synced_version"),
  };
}

/**
 * SQL for the id of the account that owns the key with this hash (NULL for
 * a key D1 does not hold). Statements that act for an account embed it, so
 * finding the caller's account costs a primary-key lookup inside a statement
 * the request makes anyway, not a round trip of its own.
 */
export function accountOfKey(hash: string | Placeholder): SQL<number | null> {
  return sql<
    number | null
  >`(SELECT ${apiKeys.accountId} FROM ${apiKeys} WHERE ${apiKeys.hash} = ${hash})`;
}

export function findKeyWithAccount(
  db: Database,
  hash: string,
): Promise<KeyWithAccount | undefined> {
  return guardStorage("D1", () => selectWithAccount(db).where(eq(apiKeys.hash, hash)).get());
}

/** The key only if it belongs to this account, so nobody can act on another account's key. */
export function findAccountKey(
  db: Database,
  accountId: number,
  hash: string,
): Promise<KeyRow | undefined> {
  return guardStorage("D1", () =>
    db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.hash, hash)))
      .get(),
  );
}

/** Newest first. */
export function listAccountKeys(db: Database, accountId: number): Promise<KeyWithAccount[]> {
  return guardStorage("D1", () =>
    selectWithAccount(db)
      .where(eq(apiKeys.accountId, accountId))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.hash)),
  );
}

export interface NewKey {
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
  const { plan, perMinute, perDay } = key.limits;
  const [, rows] = await guardStorage("D1", () =>
    db.batch([
      db.insert(apiKeys).select(
        db
          .select(
            newKeyColumns(
              { hash: key.hash, lastFour: key.lastFour, now },
              {
                plan: sql`${plan}`.as("plan"),
                perMinute: sql`${perMinute}`.as("per_minute"),
                perDay: sql`${perDay}`.as("per_day"),
              },
              accounts.id,
            ),
          )
          .from(accounts)
          .where(and(eq(accounts.id, key.accountId), underCap(accounts.id, now))),
      ),
      selectWithAccount(db).where(eq(apiKeys.hash, key.hash)),
    ]),
  );
  return rows[0];
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
  const { oldHash, accountId, newHash, newLastFour } = roll;
  const [, , [old], [successor]] = await guardStorage("D1", () =>
    db.batch([
      db.insert(apiKeys).select(
        db
          .select(
            newKeyColumns(
              { hash: newHash, lastFour: newLastFour, now },
              { plan: apiKeys.plan, perMinute: apiKeys.perMinute, perDay: apiKeys.perDay },
              apiKeys.accountId,
            ),
          )
          .from(apiKeys)
          .where(
            and(
              eq(apiKeys.hash, oldHash),
              eq(apiKeys.accountId, accountId),
              isNull(apiKeys.revokedAt),
              isNull(apiKeys.expiresAt),
              underCap(apiKeys.accountId, now),
            ),
          ),
      ),
      db
        .update(apiKeys)
        .set({ expiresAt: new Date(now + ROLL_GRACE_MS), version: sql`${apiKeys.version} + 1` })
        .where(
          and(
            eq(apiKeys.hash, oldHash),
            sql`EXISTS (SELECT 1 FROM ${apiKeys} AS successor WHERE successor.hash = ${newHash})`,
          ),
        ),
      selectWithAccount(db).where(eq(apiKeys.hash, oldHash)),
      selectWithAccount(db).where(eq(apiKeys.hash, newHash)),
    ]),
  );
  return { old, successor };
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
  const [, rows] = await guardStorage("D1", () =>
    db.batch([
      db
        .update(apiKeys)
        .set({ revokedAt: new Date(now), version: sql`${apiKeys.version} + 1` })
        .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt))),
      selectWithAccount(db).where(eq(apiKeys.hash, hash)),
    ]),
  );
  return rows[0];
}

/** Sets (or, with a null plan, clears) the limits of one key. */
export async function setKeyLimits(
  db: Database,
  hash: string,
  limits: KeyLimits,
): Promise<KeyWithAccount | undefined> {
  const [, rows] = await guardStorage("D1", () =>
    db.batch([
      db
        .update(apiKeys)
        .set({ ...limits, version: sql`${apiKeys.version} + 1` })
        .where(eq(apiKeys.hash, hash)),
      selectWithAccount(db).where(eq(apiKeys.hash, hash)),
    ]),
  );
  return rows[0];
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
  const following = and(
    eq(apiKeys.accountId, accountId),
    isNull(apiKeys.plan),
    isNull(apiKeys.revokedAt),
    sql`(${apiKeys.expiresAt} IS NULL OR ${apiKeys.expiresAt} > ${now})`,
  );
  const [, , rows] = await guardStorage("D1", () =>
    db.batch([
      db.update(accounts).set(limits).where(eq(accounts.id, accountId)),
      db
        .update(apiKeys)
        .set({ version: sql`${apiKeys.version} + 1` })
        .where(following),
      selectWithAccount(db).where(following),
    ]),
  );
  return rows;
}

/** Records that KV and the Durable Object hold this version (never moving backwards). */
export async function markKeySynced(db: Database, hash: string, version: number): Promise<void> {
  await guardStorage("D1", () =>
    db
      .update(apiKeys)
      .set({ syncedVersion: version })
      .where(and(eq(apiKeys.hash, hash), lt(apiKeys.syncedVersion, version))),
  );
}

/** Keys whose KV record or Durable Object may lag behind their row, furthest behind first. */
export function unsyncedKeys(db: Database, limit: number): Promise<KeyWithAccount[]> {
  return guardStorage("D1", () =>
    selectWithAccount(db)
      .where(lt(apiKeys.syncedVersion, apiKeys.version))
      .orderBy(desc(sql`${apiKeys.version} - ${apiKeys.syncedVersion}`))
      .limit(limit),
  );
}
