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
import { type Database, millis, preparedQueries, runBatch, runOne } from "../db/database.ts";
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

/** The keys' statements, prepared once per database. */
const keyQueries = preparedQueries((db: Database) => {
  const hash = sql.placeholder("hash");
  const keyNamed = (name: string) =>
    selectWithAccount(db)
      .where(eq(apiKeys.hash, sql.placeholder(name)))
      .prepare();
  const byHash = keyNamed("hash");
  const nextVersion = sql`${apiKeys.version} + 1`;
  const limits = {
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
  return {
    byHash,
    ofAccount: db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, sql.placeholder("accountId")), eq(apiKeys.hash, hash)))
      .prepare(),
    accountKeys: selectWithAccount(db)
      .where(eq(apiKeys.accountId, sql.placeholder("accountId")))
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.hash))
      .prepare(),
    insertUnderCap: {
      inserted: db
        .insert(apiKeys)
        .select(
          db
            .select(
              newKeyColumns(
                {
                  plan: limits.plan.as("plan"),
                  perMinute: limits.perMinute.as("per_minute"),
                  perDay: limits.perDay.as("per_day"),
                },
                accounts.id,
              ),
            )
            .from(accounts)
            .where(and(eq(accounts.id, sql.placeholder("accountId")), underCap(accounts.id))),
        )
        .prepare(),
      key: byHash,
    },
    roll: {
      successorAdded: db
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
      graceStarted: db
        .update(apiKeys)
        .set({ expiresAt: millis("graceEnds"), version: nextVersion })
        .where(
          and(
            eq(apiKeys.hash, sql.placeholder("oldHash")),
            sql`EXISTS (SELECT 1 FROM ${apiKeys} AS successor WHERE successor.hash = ${hash})`,
          ),
        )
        .prepare(),
      old: keyNamed("oldHash"),
      successor: byHash,
    },
    revoke: {
      revoked: db
        .update(apiKeys)
        .set({ revokedAt: millis("now"), version: nextVersion })
        .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt)))
        .prepare(),
      key: byHash,
    },
    setLimits: {
      limitsSet: db
        .update(apiKeys)
        .set({ ...limits, version: nextVersion })
        .where(eq(apiKeys.hash, hash))
        .prepare(),
      key: byHash,
    },
    setPlan: {
      planSet: db
        .update(accounts)
        .set(limits)
        .where(eq(accounts.id, sql.placeholder("accountId")))
        .prepare(),
      versionsMoved: db.update(apiKeys).set({ version: nextVersion }).where(following).prepare(),
      keys: selectWithAccount(db).where(following).prepare(),
    },
    synced: db
      .update(apiKeys)
      .set({ syncedVersion: sql`${sql.placeholder("version")}` })
      .where(and(eq(apiKeys.hash, hash), lt(apiKeys.syncedVersion, sql.placeholder("version"))))
      .prepare(),
    unsynced: selectWithAccount(db)
      .where(lt(apiKeys.syncedVersion, apiKeys.version))
      .orderBy(desc(sql`${apiKeys.version} - ${apiKeys.syncedVersion}`))
      .limit(sql.placeholder("limit"))
      .prepare(),
  };
});

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

export async function findKeyWithAccount(
  db: Database,
  hash: string,
): Promise<KeyWithAccount | undefined> {
  const [key] = await guardStorage("D1", () => runOne(db, keyQueries(db).byHash, { hash }));
  return key;
}

/** The key only if it belongs to this account, so nobody can act on another account's key. */
export async function findAccountKey(
  db: Database,
  accountId: number,
  hash: string,
): Promise<KeyRow | undefined> {
  const [key] = await guardStorage("D1", () =>
    runOne(db, keyQueries(db).ofAccount, { accountId, hash }),
  );
  return key;
}

/** Newest first. */
export function listAccountKeys(db: Database, accountId: number): Promise<KeyWithAccount[]> {
  return guardStorage("D1", () => runOne(db, keyQueries(db).accountKeys, { accountId }));
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
  const values = { hash: key.hash, accountId: key.accountId, lastFour: key.lastFour, now };
  const done = await guardStorage("D1", () =>
    runBatch(db, keyQueries(db).insertUnderCap, { ...values, ...key.limits }),
  );
  return done.key[0];
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
  const { old, successor } = await guardStorage("D1", () =>
    runBatch(db, keyQueries(db).roll, values),
  );
  return { old: old[0], successor: successor[0] };
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
  const done = await guardStorage("D1", () => runBatch(db, keyQueries(db).revoke, { hash, now }));
  return done.key[0];
}

/** Sets (or, with a null plan, clears) the limits of one key. */
export async function setKeyLimits(
  db: Database,
  hash: string,
  limits: KeyLimits,
): Promise<KeyWithAccount | undefined> {
  const done = await guardStorage("D1", () =>
    runBatch(db, keyQueries(db).setLimits, { hash, ...limits }),
  );
  return done.key[0];
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
  const done = await guardStorage("D1", () =>
    runBatch(db, keyQueries(db).setPlan, { accountId, ...limits, now }),
  );
  return done.keys;
}

/** Records that KV and the Durable Object hold this version (never moving backwards). */
export async function markKeySynced(db: Database, hash: string, version: number): Promise<void> {
  await guardStorage("D1", () => runOne(db, keyQueries(db).synced, { hash, version }));
}

/** Keys whose KV record or Durable Object may lag behind their row, furthest behind first. */
export function unsyncedKeys(db: Database, limit: number): Promise<KeyWithAccount[]> {
  return guardStorage("D1", () => runOne(db, keyQueries(db).unsynced, { limit }));
}
