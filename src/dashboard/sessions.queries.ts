import { eq, lte } from "drizzle-orm";
import type { Account } from "../accounts/accounts.queries.ts";
import type { Database } from "../db/database.ts";
import { accounts, dashboardSessions } from "../db/schema.ts";
import { guardStorage } from "../storage/storage-guard.ts";

export type SessionRow = typeof dashboardSessions.$inferSelect;

/** Stores a new session, deleting the one the browser held before (if any) in the same batch. */
export async function insertSession(
  db: Database,
  session: SessionRow,
  replacing: string | undefined,
): Promise<void> {
  const insert = db.insert(dashboardSessions).values(session);
  if (replacing === undefined) {
    await guardStorage("D1", () => insert);
    return;
  }
  const end = db.delete(dashboardSessions).where(eq(dashboardSessions.tokenHash, replacing));
  await guardStorage("D1", () => db.batch([end, insert]));
}

/** The session with this token hash and the account it signs in, ended or not. */
export function findSession(
  db: Database,
  tokenHash: string,
): Promise<{ session: SessionRow; account: Account } | undefined> {
  return guardStorage("D1", () =>
    db
      .select({ session: dashboardSessions, account: accounts })
      .from(dashboardSessions)
      .innerJoin(accounts, eq(accounts.id, dashboardSessions.accountId))
      .where(eq(dashboardSessions.tokenHash, tokenHash))
      .get(),
  );
}

/** Ends a session (its notices go with it). */
export async function deleteSession(db: Database, tokenHash: string): Promise<void> {
  await guardStorage("D1", () =>
    db.delete(dashboardSessions).where(eq(dashboardSessions.tokenHash, tokenHash)),
  );
}

/** Scheduled: sessions past their end are removed, and their notices with them. */
export async function deleteExpiredSessions(db: Database, now: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    db.delete(dashboardSessions).where(lte(dashboardSessions.expiresAt, new Date(now))),
  );
  return result.meta.changes;
}
