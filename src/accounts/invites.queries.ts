import { and, eq, gt, lte, sql } from "drizzle-orm";
import { change } from "../changes/change.ts";
import { type Database, type Drizzle, millis, preparedQueries, runOne } from "../db/database.ts";
import { accountInvites, accounts, dashboardSessions } from "../db/schema.ts";
import { firstRow, guardStorage } from "../storage/storage-guard.ts";
import type { Account } from "./accounts.queries.ts";

const tokenHash = sql.placeholder("tokenHash");
const valid = and(
  eq(accountInvites.tokenHash, tokenHash),
  gt(accountInvites.expiresAt, millis("now")),
);
const invitedAccount = sql`(SELECT ${accountInvites.accountId} FROM ${accountInvites} WHERE ${valid})`;

/** Saving an invite: the account's earlier one goes. */
const saving = change()
  .step("replaced", (db) =>
    db
      .delete(accountInvites)
      .where(eq(accountInvites.accountId, sql.placeholder("accountId")))
      .prepare(),
  )
  .step("saved", (db) =>
    db
      .insert(accountInvites)
      .values({
        tokenHash,
        accountId: sql.placeholder("accountId"),
        expiresAt: millis("expiresAt"),
      })
      .prepare(),
  );

/** Redeeming an invite: the password set, the sessions ended, the invite used up. */
const redeeming = change()
  .step("updated", (db) =>
    db
      .update(accounts)
      .set({ passwordHash: sql`${sql.placeholder("passwordHash")}` })
      .where(eq(accounts.id, invitedAccount))
      .returning()
      .prepare(),
  )
  // A new password ends every session signed in with the old one.
  .step("sessionsEnded", (db) =>
    db.delete(dashboardSessions).where(eq(dashboardSessions.accountId, invitedAccount)).prepare(),
  )
  .step("used", (db) =>
    db.delete(accountInvites).where(eq(accountInvites.tokenHash, tokenHash)).prepare(),
  );

/** The invites' single statements, prepared once per database. */
const inviteQueries = preparedQueries((db: Drizzle) => ({
  invited: db
    .select({ account: accounts })
    .from(accountInvites)
    .innerJoin(accounts, eq(accounts.id, accountInvites.accountId))
    .where(valid)
    .prepare(),
  deleteExpired: db
    .delete(accountInvites)
    .where(lte(accountInvites.expiresAt, millis("now")))
    .prepare(),
}));

/** Replaces any earlier invite of the account: only the newest link works. */
export async function saveInvite(
  db: Database,
  invite: { tokenHash: string; accountId: number; expiresAt: Date },
): Promise<void> {
  const values = { ...invite, expiresAt: invite.expiresAt.getTime() };
  await saving.run(db, values);
}

/** The account a still-valid invite belongs to. */
export async function findInvitedAccount(
  db: Database,
  tokenHash: string,
  now: number,
): Promise<Account | undefined> {
  const row = await firstRow(db, inviteQueries(db).invited, { tokenHash, now });
  return row?.account;
}

/**
 * Sets the password through a still-valid invite, ends the account's other
 * sessions (an invite may reset a password someone else knew) and uses the
 * invite up, in one transaction: of two concurrent uses, only the first
 * sets a password.
 */
export async function redeemInvite(
  db: Database,
  tokenHash: string,
  passwordHash: string,
  now: number,
): Promise<Account | undefined> {
  const { results } = await redeeming.run(db, { tokenHash, passwordHash, now });
  return results.updated[0];
}

/** Scheduled: invites past their expiry are removed. */
export async function deleteExpiredInvites(db: Database, now: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    runOne(db, inviteQueries(db).deleteExpired, { now }),
  );
  return result.meta.changes;
}
