import { and, desc, eq, getTableColumns, lt, type Placeholder, type SQL, sql } from "drizzle-orm";
import { type Database, type Drizzle, preparedQueries, runOne } from "../db/database.ts";
import { accounts, apiKeys } from "../db/schema.ts";
import type { Plan } from "../rate-limit/plans.ts";
import { firstRow, guardStorage } from "../storage/storage-guard.ts";

/**
 * Working keys an account may hold, by its plan: not revoked, not expired,
 * and not a rolled key in its grace period (a roll never counts).
 */
export const WORKING_KEYS_BY_PLAN: Record<Plan, number> = {
  free: 3,
  pro: 10,
  business: 25,
  enterprise: 50,
};

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

/** Keys with their accounts' columns. */
export function selectWithAccount(db: Drizzle) {
  return db
    .select(withAccount)
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId));
}

/** The key a statement is about, by its hash. */
export const boundHash = sql.placeholder("hash");
/** The key (with its account) whose hash is bound to `name`. */
export function keyNamed(db: Drizzle, name: string) {
  return selectWithAccount(db)
    .where(eq(apiKeys.hash, sql.placeholder(name)))
    .prepare();
}

/** The keys' single statements, prepared once per database. */
const keyQueries = preparedQueries((db: Drizzle) => ({
  byHash: keyNamed(db, "hash"),
  ofAccount: db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, sql.placeholder("accountId")), eq(apiKeys.hash, boundHash)))
    .prepare(),
  accountKeys: selectWithAccount(db)
    .where(eq(apiKeys.accountId, sql.placeholder("accountId")))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.hash))
    .prepare(),
  synced: db
    .update(apiKeys)
    .set({ syncedVersion: sql`${sql.placeholder("version")}` })
    .where(and(eq(apiKeys.hash, boundHash), lt(apiKeys.syncedVersion, sql.placeholder("version"))))
    .prepare(),
  unsynced: selectWithAccount(db)
    .where(lt(apiKeys.syncedVersion, apiKeys.version))
    .orderBy(desc(sql`${apiKeys.version} - ${apiKeys.syncedVersion}`))
    .limit(sql.placeholder("limit"))
    .prepare(),
}));

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
  return firstRow(db, keyQueries(db).byHash, { hash });
}

/** The key only if it belongs to this account, so nobody can act on another account's key. */
export async function findAccountKey(
  db: Database,
  accountId: number,
  hash: string,
): Promise<KeyRow | undefined> {
  return firstRow(db, keyQueries(db).ofAccount, { accountId, hash });
}

/** Newest first. */
export function listAccountKeys(db: Database, accountId: number): Promise<KeyWithAccount[]> {
  return guardStorage("D1", () => runOne(db, keyQueries(db).accountKeys, { accountId }));
}

/** Records that KV and the Durable Object hold this version (never moving backwards). */
export async function markKeySynced(db: Database, hash: string, version: number): Promise<void> {
  await guardStorage("D1", () => runOne(db, keyQueries(db).synced, { hash, version }));
}

/** Keys whose KV record or Durable Object may lag behind their row, furthest behind first. */
export function unsyncedKeys(db: Database, limit: number): Promise<KeyWithAccount[]> {
  return guardStorage("D1", () => runOne(db, keyQueries(db).unsynced, { limit }));
}
