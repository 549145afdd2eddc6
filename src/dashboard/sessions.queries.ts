import { and, eq, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Account } from "../accounts/accounts.queries.ts";
import { change } from "../changes/change.ts";
import { type Database, type Drizzle, millis, preparedQueries, runOne } from "../db/database.ts";
import { accounts, dashboardSessions } from "../db/schema.ts";
import { firstRow, guardStorage } from "../storage/storage-guard.ts";

type SessionRow = typeof dashboardSessions.$inferSelect;

const named = (name: string) => eq(dashboardSessions.tokenHash, sql.placeholder(name));

/** Starting a session: the one the browser held before goes. */
const starting = change()
  .step("replaced", (db) => db.delete(dashboardSessions).where(named("replacing")).prepare())
  .step("started", (db) =>
    db
      .insert(dashboardSessions)
      .values({
        tokenHash: sql.placeholder("tokenHash"),
        accountId: sql.placeholder("accountId"),
        createdAt: millis("createdAt"),
        expiresAt: millis("expiresAt"),
      })
      .prepare(),
  );

/** The sessions' single statements, prepared once per database. */
const sessionQueries = preparedQueries((db: Drizzle) => {
  return {
    // Only the session's end and bookmark: its other columns share names with the account's.
    find: db
      .select({
        session: { expiresAt: dashboardSessions.expiresAt, bookmark: dashboardSessions.bookmark },
        account: accounts,
      })
      .from(dashboardSessions)
      .innerJoin(accounts, eq(accounts.id, dashboardSessions.accountId))
      .where(named("tokenHash"))
      .prepare(),
    end: db.delete(dashboardSessions).where(named("tokenHash")).prepare(),
    // Bookmarks sort oldest to newest: a later one never gives way to an earlier.
    keepBookmark: db
      .update(dashboardSessions)
      .set({ bookmark: sql`${sql.placeholder("bookmark")}` })
      .where(
        and(
          named("tokenHash"),
          or(
            isNull(dashboardSessions.bookmark),
            lt(dashboardSessions.bookmark, sql.placeholder("bookmark")),
          ),
        ),
      )
      .prepare(),
    deleteExpired: db
      .delete(dashboardSessions)
      .where(lte(dashboardSessions.expiresAt, millis("now")))
      .prepare(),
  };
});

/** Stores a new session, deleting the one the browser held before (if any) in the same batch. */
export async function insertSession(
  db: Database,
  session: Omit<SessionRow, "bookmark">,
  replacing: string | undefined,
): Promise<void> {
  const values = {
    ...session,
    createdAt: session.createdAt.getTime(),
    expiresAt: session.expiresAt.getTime(),
    replacing: replacing ?? null,
  };
  await starting.run(db, values);
}

/** The session with this token hash (when it ends, its bookmark) and the account it signs in, ended or not. */
export function findSession(
  db: Database,
  tokenHash: string,
): Promise<{ session: Pick<SessionRow, "expiresAt" | "bookmark">; account: Account } | undefined> {
  return firstRow(db, sessionQueries(db).find, { tokenHash });
}

/** Keeps `bookmark` with the session, unless it holds a newer one. */
export async function keepSessionBookmark(
  db: Database,
  tokenHash: string,
  bookmark: string,
): Promise<void> {
  await guardStorage("D1", () =>
    runOne(db, sessionQueries(db).keepBookmark, { tokenHash, bookmark }),
  );
}

/** Ends a session (its notices go with it). */
export async function deleteSession(db: Database, tokenHash: string): Promise<void> {
  await guardStorage("D1", () => runOne(db, sessionQueries(db).end, { tokenHash }));
}

/** Scheduled: sessions past their end are removed, and their notices with them. */
export async function deleteExpiredSessions(db: Database, now: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    runOne(db, sessionQueries(db).deleteExpired, { now }),
  );
  return result.meta.changes;
}
