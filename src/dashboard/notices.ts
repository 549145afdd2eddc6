import { z } from "zod";
import type { Database } from "../db/database.ts";
import { openNotice, sealNotice } from "./notice-seal.ts";
import { insertNotice, takeNoticeRows } from "./notices.queries.ts";
import type { Session } from "./session.ts";

/** How long a notice waits for the page that shows it. */
export const NOTICE_TTL_MS = 5 * 60 * 1000;

const NoticeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("key-created"), key: z.string() }),
  z.object({
    kind: z.literal("key-rolled"),
    key: z.string(),
    oldLastFour: z.string(),
    graceEndsAt: z.number(),
  }),
  z.object({ kind: z.literal("key-revoked"), lastFour: z.string() }),
]);

/** What a form's success tells the next page: a new key (its one showing), or what became of one. */
export type Notice = z.infer<typeof NoticeSchema>;

/**
 * Keeps a notice with the session for the page a successful post redirects
 * to, sealed with the session cookie's token; nothing in an address can make one.
 */
export async function leaveNotice(db: Database, session: Session, notice: Notice): Promise<void> {
  await insertNotice(db, {
    sessionHash: session.id,
    sealed: await sealNotice(session.token, session.id, JSON.stringify(notice)),
    expiresAt: new Date(Date.now() + NOTICE_TTL_MS),
  });
}

/** The session's waiting notices, deleted as they are read: each is shown once, if at all. */
export async function takeNotices(db: Database, session: Session): Promise<Notice[]> {
  const now = Date.now();
  const rows = await takeNoticeRows(db, session.id);
  const notices: Notice[] = [];
  for (const row of rows) {
    if (row.expiresAt.getTime() <= now) continue;
    const text = await openNotice(session.token, session.id, row.sealed);
    const parsed = text === undefined ? undefined : NoticeSchema.safeParse(JSON.parse(text));
    if (parsed?.success) notices.push(parsed.data);
  }
  return notices;
}
