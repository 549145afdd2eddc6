import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { accounts } from "../db/schema.ts";
import { guardStorage } from "../storage/storage-guard.ts";

export type Account = typeof accounts.$inferSelect;

/** Emails are compared without regard to case; they are stored in this form too. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

const byEmail = (email: string) => eq(sql`lower(${accounts.email})`, normaliseEmail(email));

export function findAccountByEmail(db: Database, email: string): Promise<Account | undefined> {
  return guardStorage("D1", () => db.select().from(accounts).where(byEmail(email)).get());
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
  const [row] = await guardStorage("D1", () =>
    db
      .insert(accounts)
      .values({ email: normaliseEmail(email), passwordHash })
      .onConflictDoNothing()
      .returning(),
  );
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
