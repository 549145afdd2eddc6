import { and, desc, eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { apiKeys } from "../db/schema.ts";

/** One key as the dashboard lists it; never the key itself, only its hash and last four. */
export interface AccountKey {
  hash: string;
  accountId: number;
  lastFour: string;
  createdAt: Date;
  revokedAt: Date | null;
  expiresAt: Date | null;
}

export async function insertAccountKey(db: Database, key: AccountKey): Promise<void> {
  await db.insert(apiKeys).values(key);
}

/** Newest first. */
export async function listAccountKeys(db: Database, accountId: number): Promise<AccountKey[]> {
  return db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.accountId, accountId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.hash));
}

/** The key only if it belongs to this account, so nobody can act on another account's key. */
export async function findAccountKey(
  db: Database,
  accountId: number,
  hash: string,
): Promise<AccountKey | undefined> {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.hash, hash)))
    .get();
}

export async function markAccountKeyRevoked(db: Database, hash: string, at: Date): Promise<void> {
  await db.update(apiKeys).set({ revokedAt: at }).where(eq(apiKeys.hash, hash));
}

export async function markAccountKeyExpiring(db: Database, hash: string, at: Date): Promise<void> {
  await db.update(apiKeys).set({ expiresAt: at }).where(eq(apiKeys.hash, hash));
}
