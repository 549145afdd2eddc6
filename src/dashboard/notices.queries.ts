import { eq, lte, sql } from "drizzle-orm";
import { type Database, type Drizzle, millis, preparedQueries, runOne } from "../db/database.ts";
import { sessionNotices } from "../db/schema.ts";
import { guardStorage } from "../storage/storage-guard.ts";

type NoticeRow = typeof sessionNotices.$inferSelect;

/** The notices' statements, prepared once per database. */
const noticeQueries = preparedQueries((db: Drizzle) => ({
  insert: db
    .insert(sessionNotices)
    .values({
      sessionHash: sql.placeholder("sessionHash"),
      sealed: sql.placeholder("sealed"),
      expiresAt: millis("expiresAt"),
    })
    .prepare(),
  take: db
    .delete(sessionNotices)
    .where(eq(sessionNotices.sessionHash, sql.placeholder("sessionHash")))
    .returning()
    .prepare(),
  deleteExpired: db
    .delete(sessionNotices)
    .where(lte(sessionNotices.expiresAt, millis("now")))
    .prepare(),
}));

export async function insertNotice(db: Database, notice: Omit<NoticeRow, "id">): Promise<void> {
  const values = { ...notice, expiresAt: notice.expiresAt.getTime() };
  await guardStorage("D1", () => runOne(db, noticeQueries(db).insert, values));
}

/**
 * Deletes every notice of the session and returns them, oldest first, in one
 * statement: of two requests for the same page, only one gets them.
 */
export async function takeNoticeRows(db: Database, sessionHash: string): Promise<NoticeRow[]> {
  const rows = await guardStorage("D1", () => runOne(db, noticeQueries(db).take, { sessionHash }));
  return rows.sort((a, b) => a.id - b.id);
}

/** Scheduled: notices nobody came to see are removed. */
export async function deleteExpiredNotices(db: Database, now: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    runOne(db, noticeQueries(db).deleteExpired, { now }),
  );
  return result.meta.changes;
}
