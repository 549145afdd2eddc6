import { eq, sql } from "drizzle-orm";
import { type Database, type Drizzle, millis, preparedQueries, runOne } from "../db/database.ts";
import { accounts } from "../db/schema.ts";
import { guardStorage } from "../storage/storage-guard.ts";

export type Account = typeof accounts.$inferSelect;

/** Emails are compared without regard to case; they are stored in this form too. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The accounts' statements, prepared once per database. */
const accountQueries = preparedQueries((db: Drizzle) => ({
  byEmail: db
    .select()
    .from(accounts)
    .where(eq(sql`lower(${accounts.email})`, sql.placeholder("email")))
    .prepare(),
  insert: db
    .insert(accounts)
    .values({
      email: sql.placeholder("email"),
      passwordHash: sql.placeholder("passwordHash"),
      createdAt: millis("now"),
    })
    .onConflictDoNothing()
    .returning()
    .prepare(),
}));

export async function findAccountByEmail(
  db: Database,
  email: string,
): Promise<Account | undefined> {
  const values = { email: normaliseEmail(email) };
  const [account] = await guardStorage("D1", () => runOne(db, accountQueries(db).byEmail, values));
  return account;
}

/** Whether the account's owner can sign in: an operator-made account has no password until its invite is used. */
export function hasPassword(account: Account): boolean {
  return account.passwordHash !== "";
}

/**
 * The new account (on Free), or null when the email is taken, in any case:
 * signing up never takes over an existing account, even one an operator made.
 */
export async function insertAccount(
  db: Database,
  email: string,
  passwordHash: string,
): Promise<Account | null> {
  const values = { email: normaliseEmail(email), passwordHash, now: Date.now() };
  const [row] = await guardStorage("D1", () => runOne(db, accountQueries(db).insert, values));
  return row ?? null;
}

/** The account with this email, made (on Free, without a password) when there is none. */
export async function findOrCreateAccount(
  db: Database,
  email: string,
): Promise<{ account: Account; created: boolean }> {
  const created = await insertAccount(db, email, "");
  if (created) return { account: created, created: true };
  const existing = await findAccountByEmail(db, email);
  if (!existing) throw new Error("account vanished between insert and select");
  return { account: existing, created: false };
}
