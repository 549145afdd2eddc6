import { and, asc, eq, gt, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import { change } from "../changes/change.ts";
import { type Database, type Drizzle, millis, preparedQueries, runOne } from "../db/database.ts";
import { events, webhooks } from "../db/schema.ts";
import { accountOfKey } from "../keys/keys.queries.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import { type DeliveryMessage, eventColumns, toEvent } from "./event-records.ts";
import type { Event, EventType } from "./events.schemas.ts";
import { endpointWants, noEndpointWants } from "./outbox.ts";

/** How long events stay in the feed, and so how long a delivery can be retried. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export interface EventPageQuery {
  /** The caller's key: its account's order events are listed, with every account's pet events. */
  apiKeyHash: string;
  /** Only these kinds; undefined for all. */
  types: EventType[] | undefined;
  afterSeq: number;
  limit: number;
  now: number;
}

export interface EventPage {
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
    limit: query.limit + 1,
  };
  const rows = await guardStorage("D1", () => runOne(db, query.types ? pageOfTypes : page, values));
  const listed = rows.slice(0, query.limit);
  return {
    events: listed.map(toEvent),
    lastSeq: listed.at(-1)?.seq,
    hasMore: rows.length > query.limit,
  };
}

/** Removes events past the retention period, sent or not; run by the scheduled job. */
export async function deleteExpiredEvents(db: Database, now: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    runOne(db, eventQueries(db).deleteExpired, { before: now - EVENT_RETENTION_MS }),
  );
  return result.meta.changes;
}

export interface Claim {
  /** Events taken: when fewer than asked, none are left waiting. */
  events: number;
  /** The deliveries those events make, for the queue. */
  deliveries: DeliveryMessage[];
}

/** The events a dispatcher holds under its claim's token. */
const mine = and(eq(events.claimToken, sql.placeholder("token")), isNull(events.dispatchedAt));

/**
 * A dispatcher's claim: up to `limit` waiting events, oldest first, taken
 * for the lease; claimed events no endpoint wants any more (it was deleted
 * after they were written) marked sent; the deliveries of the others read.
 */
const claiming = change()
  .step("claimed", (db) =>
    db
      .update(events)
      .set({ claimToken: sql`${sql.placeholder("token")}`, claimExpiresAt: millis("leaseEnds") })
      .where(
        inArray(
          events.seq,
          db
            .select({ seq: events.seq })
            .from(events)
            .where(
              and(
                isNull(events.dispatchedAt),
                or(isNull(events.claimExpiresAt), lte(events.claimExpiresAt, millis("now"))),
              ),
            )
            .orderBy(asc(events.seq))
            .limit(sql.placeholder("limit")),
        ),
      )
      .returning({ seq: events.seq })
      .prepare(),
  )
  .step("unwanted", (db) =>
    db
      .update(events)
      .set({ dispatchedAt: millis("now"), claimToken: null, claimExpiresAt: null })
      .where(and(mine, noEndpointWants))
      .prepare(),
  )
  .read("deliveries", (db) =>
    db
      .select({ eventId: events.id, webhookId: sql<number>`${webhooks.id}`.as("webhook_id") })
      .from(events)
      .innerJoin(webhooks, endpointWants)
      .where(mine)
      .orderBy(asc(events.seq), asc(webhooks.id))
      .prepare(),
  );

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
    dispatched: db
      .update(events)
      .set({ dispatchedAt: millis("now"), claimToken: null, claimExpiresAt: null })
      .where(mine)
      .prepare(),
    released: db
      .update(events)
      .set({ claimToken: null, claimExpiresAt: null })
      .where(mine)
      .prepare(),
  };
});

/**
 * Claims up to `limit` waiting events, oldest first, for `leaseMs`: no
 * other dispatcher takes them before the lease ends, and if this one dies
 * first, the next takes them after. In the same batch, claimed events no
 * endpoint wants any more (it was deleted after they were written) are
 * marked sent, and the deliveries of the others are read: one round trip.
 */
export async function claimEvents(
  db: Database,
  claim: { token: string; now: number; leaseMs: number; limit: number },
): Promise<Claim> {
  const values = {
    token: claim.token,
    now: claim.now,
    leaseEnds: claim.now + claim.leaseMs,
    limit: claim.limit,
  };
  const { results } = await claiming.run(db, values);
  return { events: results.claimed.length, deliveries: results.deliveries };
}

/** The claimed events' deliveries are on the queue: they are sent, unless the claim was lost. */
export async function markDispatched(db: Database, token: string, now: number): Promise<void> {
  await guardStorage("D1", () => runOne(db, eventQueries(db).dispatched, { token, now }));
}

/** Gives claimed events back at once (the queue refused them), rather than when the lease ends. */
export async function releaseClaim(db: Database, token: string): Promise<void> {
  await guardStorage("D1", () => runOne(db, eventQueries(db).released, { token }));
}
