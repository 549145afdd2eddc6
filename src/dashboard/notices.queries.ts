import { eq, lte } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { sessionNotices } from "../db/schema.ts";
import { guardStorage } from "../storage/storage-guard.ts";

export type NoticeRow = typeof sessionNotices.$inferSelect;

export async function insertNotice(db: Database, notice: Omit<NoticeRow, "id">): Promise<void> {
  await guardStorage("D1", () => db.insert(sessionNotices).values(notice));
}

/**
 * Deletes every notice of the session and returns them, oldest first, in one
 * statement: of two requests for the same page, only one gets them.
 */
export async function takeNoticeRows(db: Database, sessionHash: string): Promise<NoticeRow[]> {
  const rows = await guardStorage("D1", () =>
    db.delete(sessionNotices).where(eq(sessionNotices.sessionHash, sessionHash)).returning(),
  );
  return rows.sort((a, b) => a.id - b.id);
}

/** Scheduled: notices nobody came to see are removed. */
export async function deleteExpiredNotices(db: Database, now: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    db.delete(sessionNotices).where(lte(sessionNotices.expiresAt, new Date(now))),
  );
  return result.meta.changes;
}
