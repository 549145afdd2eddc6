import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { accounts } from "../db/schema.ts";
import type { Plan } from "../keys/key-record.ts";

export interface Account {
  id: number;
  email: string;
  passwordHash: string;
  plan: Plan;
  createdAt: Date;
}

/** Emails are compared without regard to case; they are stored in this form too. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function findAccountByEmail(
  db: Database,
  email: string,
): Promise<Account | undefined> {
  return db
    .select()
    .from(accounts)
    .where(eq(sql`lower(${accounts.email})`, normaliseEmail(email)))
    .get();
}

export async function findAccountById(db: Database, id: number): Promise<Account | undefined> {
  return db.select().from(accounts).where(eq(accounts.id, id)).get();
}

export interface NewAccount {
  email: string;
  passwordHash: string;
}

/** The new account (on Free), or null when the email is taken, in any case. */
export async function insertAccount(db: Database, account: NewAccount): Promise<Account | null> {
  const [row] = await db
    .insert(accounts)
    .values({ email: normaliseEmail(account.email), passwordHash: account.passwordHash })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}
