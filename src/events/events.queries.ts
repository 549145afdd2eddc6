import { and, asc, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { type Database, type Drizzle, millis, preparedQueries, runOne } from "../db/database.ts";
import { events } from "../db/schema.ts";
import { accountOfKey } from "../keys/keys.queries.ts";
import { guardStorage, readPage } from "../storage/storage-guard.ts";
import { eventColumns, toEvent } from "./event-records.ts";
import type { Event, EventType } from "./events.schemas.ts";

/** How long events stay in the feed, and so how long a delivery can be retried. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

interface EventPageQuery {
  /** The caller's key: its account's order events are listed, with every account's pet events. */
  apiKeyHash: string;
  /** Only these kinds; undefined for all. */
  types: EventType[] | undefined;
  afterSeq: number;
  limit: number;
  now: number;
}

interface EventPage {
  events: Event[];
  /** The position of the last event listed, for the next page's cursor. */
  lastSeq: number | undefined;
  hasMore: boolean;
}

/** One page of the caller's visible events of the retention period, in commit order. */
export async function listEvents(db: Database, query: EventPageQuery): Promise<EventPage> {
  const { page, pageOfTypes } = eventQueries(db);
  const values = {
    apiKeyHash: query.apiKeyHash,
    afterSeq: query.afterSeq,
    since: query.now - EVENT_RETENTION_MS,
    types: JSON.stringify(query.types),
    limit: query.limit,
  };
  const { listed, hasMore } = await readPage(db, query.types ? pageOfTypes : page, values);
  return { events: listed.map(toEvent), lastSeq: listed.at(-1)?.seq, hasMore };
}

/** Removes events past the retention period, sent or not; run by the scheduled job. */
export async function deleteExpiredEvents(db: Database, now: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    runOne(db, eventQueries(db).deleteExpired, { before: now - EVENT_RETENTION_MS }),
  );
  return result.meta.changes;
}

/** The events' statements, prepared once per database. */
const eventQueries = preparedQueries((db: Drizzle) => {
  const page = (ofTypes: boolean) =>
    db
      .select(eventColumns)
      .from(events)
      .where(
        and(
          gt(events.seq, sql.placeholder("afterSeq")),
          gt(events.createdAt, millis("since")),
          or(
            isNull(events.accountId),
            eq(events.accountId, accountOfKey(sql.placeholder("apiKeyHash"))),
          ),
          // A list of kinds binds as one JSON array, so one statement serves any list.
          ofTypes
            ? inArray(events.type, sql`(SELECT value FROM json_each(${sql.placeholder("types")}))`)
            : undefined,
        ),
      )
      .orderBy(asc(events.seq))
      .limit(sql.placeholder("limit"))
      .prepare();
  return {
    page: page(false),
    pageOfTypes: page(true),
    deleteExpired: db
      .delete(events)
      .where(lt(events.createdAt, millis("before")))
      .prepare(),
  };
});
