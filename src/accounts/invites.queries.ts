import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { accountInvites, accounts, dashboardSessions } from "../db/schema.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { Account } from "./accounts.queries.ts";

/** Replaces any earlier invite of the account: only the newest link works. */
export async function saveInvite(
  db: Database,
  invite: { tokenHash: string; accountId: number; expiresAt: Date },
): Promise<void> {
  await guardStorage("D1", () =>
    db.batch([
      db.delete(accountInvites).where(eq(accountInvites.accountId, invite.accountId)),
      db.insert(accountInvites).values(invite),
    ]),
  );
}

/** The account a still-valid invite belongs to. */
export function findInvitedAccount(
  db: Database,
  tokenHash: string,
  now: number,
): Promise<Account | undefined> {
  return guardStorage("D1", () =>
    db
      .select({ account: accounts })
      .from(accountInvites)
      .innerJoin(accounts, eq(accounts.id, accountInvites.accountId))
      .where(
        and(eq(accountInvites.tokenHash, tokenHash), gt(accountInvites.expiresAt, new Date(now))),
      )
      .get()
      .then((row) => row?.account),
  );
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
  const valid = and(
    eq(accountInvites.tokenHash, tokenHash),
    gt(accountInvites.expiresAt, new Date(now)),
  );
  const [updated] = await guardStorage("D1", () =>
    db.batch([
      db
        .update(accounts)
        .set({ passwordHash })
        .where(
          eq(
            accounts.id,
            sql`(SELECT ${accountInvites.accountId} FROM ${accountInvites} WHERE ${valid})`,
          ),
        )
        .returning(),
      // A new password ends every session signed in with the old one.
      db
        .delete(dashboardSessions)
        .where(
          eq(
            dashboardSessions.accountId,
            sql`(SELECT ${accountInvites.accountId} FROM ${accountInvites} WHERE ${valid})`,
          ),
        ),
      db.delete(accountInvites).where(eq(accountInvites.tokenHash, tokenHash)),
    ]),
  );
  return updated[0];
}

/** Scheduled: invites past their expiry are removed. */
export async function deleteExpiredInvites(db: Database, now: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    db.delete(accountInvites).where(lte(accountInvites.expiresAt, new Date(now))),
  );
  return result.meta.changes;
}
