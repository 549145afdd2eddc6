import { eq, sql } from "drizzle-orm";
import { type Database, type Drizzle, millis, preparedQueries } from "../db/database.ts";
import { accounts } from "../db/schema.ts";
import { planLimits } from "../rate-limit/plans.ts";
import { firstRow } from "../storage/storage-guard.ts";

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
      plan: sql.placeholder("plan"),
      perMinute: sql.placeholder("perMinute"),
      perDay: sql.placeholder("perDay"),
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
  const account = await firstRow(db, accountQueries(db).byEmail, values);
  return account;
}

/** Whether the account's owner can sign in: an operator-made account has no password until its invite is used. */
export function hasPassword(account: Account): boolean {
  return account.passwordHash !== "";
}

/**
 * The plan a new account starts on: Free, but the environment's operator
 * account (whichever way it is first made) starts on Enterprise, with the
 * numbers of Business, so it may hold the most working keys.
 */
function startingPlan(email: string, operatorEmail: string) {
  return normaliseEmail(email) === normaliseEmail(operatorEmail)
    ? { plan: "enterprise", ...planLimits.business }
    : { plan: "free", perMinute: null, perDay: null };
}

/**
 * The new account (see `startingPlan`), or null when the email is taken, in
 * any case: signing up never takes over an existing account, even one an
 * operator made.
 */
export async function insertAccount(
  db: Database,
  account: { email: string; passwordHash: string; operatorEmail: string },
): Promise<Account | null> {
  const { email, passwordHash, operatorEmail } = account;
  const values = {
    email: normaliseEmail(email),
    passwordHash,
    ...startingPlan(email, operatorEmail),
    now: Date.now(),
  };
  const row = await firstRow(db, accountQueries(db).insert, values);
  return row ?? null;
}

/** The account with this email, made (without a password) when there is none. */
export async function findOrCreateAccount(
  db: Database,
  email: string,
  operatorEmail: string,
): Promise<{ account: Account; created: boolean }> {
  const created = await insertAccount(db, { email, passwordHash: "", operatorEmail });
  if (created) return { account: created, created: true };
  const existing = await findAccountByEmail(db, email);
  if (!existing) throw new Error("account vanished between insert and select");
  return { account: existing, created: false };
}
