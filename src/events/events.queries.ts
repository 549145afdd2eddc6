import { and, asc, eq, gt, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import { type Database, millis, preparedQueries, runBatch } from "../db/database.ts";
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
  const rows = await guardStorage("D1", () =>
    db
      .select(eventColumns)
      .from(events)
      .where(
        and(
          gt(events.seq, query.afterSeq),
          gt(events.createdAt, new Date(query.now - EVENT_RETENTION_MS)),
          or(isNull(events.accountId), eq(events.accountId, accountOfKey(query.apiKeyHash))),
          query.types ? inArray(events.type, query.types) : undefined,
        ),
      )
      .orderBy(asc(events.seq))
      .limit(query.limit + 1),
  );
  const page = rows.slice(0, query.limit);
  return {
    events: page.map(toEvent),
    lastSeq: page.at(-1)?.seq,
    hasMore: rows.length > query.limit,
  };
}

/** Removes events past the retention period, sent or not; run by the scheduled job. */
export async function deleteExpiredEvents(db: Database, now: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    db.delete(events).where(lt(events.createdAt, new Date(now - EVENT_RETENTION_MS))),
  );
  return result.meta.changes;
}

export interface Claim {
  /** Events taken: when fewer than asked, none are left waiting. */
  events: number;
  /** The deliveries those events make, for the queue. */
  deliveries: DeliveryMessage[];
}

/** A claim's statements, prepared once per database. */
const claimQueries = preparedQueries((db: Database) => {
  const mine = and(eq(events.claimToken, sql.placeholder("token")), isNull(events.dispatchedAt));
  const waiting = db
    .select({ seq: events.seq })
    .from(events)
    .where(
      and(
        isNull(events.dispatchedAt),
        or(isNull(events.claimExpiresAt), lte(events.claimExpiresAt, millis("now"))),
      ),
    )
    .orderBy(asc(events.seq))
    .limit(sql.placeholder("limit"));
  return {
    claimed: db
      .update(events)
      .set({ claimToken: sql`${sql.placeholder("token")}`, claimExpiresAt: millis("leaseEnds") })
      .where(inArray(events.seq, waiting))
      .returning({ seq: events.seq })
      .prepare(),
    unwanted: db
      .update(events)
      .set({ dispatchedAt: millis("now"), claimToken: null, claimExpiresAt: null })
      .where(and(mine, noEndpointWants))
      .prepare(),
    deliveries: db
      .select({ eventId: events.id, webhookId: sql<number>`${webhooks.id}`.as("webhook_id") })
      .from(events)
      .innerJoin(webhooks, endpointWants)
      .where(mine)
      .orderBy(asc(events.seq), asc(webhooks.id))
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
  const { claimed, deliveries } = await guardStorage("D1", () =>
    runBatch(db, claimQueries(db), values),
  );
  return { events: claimed.length, deliveries };
}

/** The claimed events' deliveries are on the queue: they are sent, unless the claim was lost. */
export async function markDispatched(db: Database, token: string, now: number): Promise<void> {
  await guardStorage("D1", () =>
    db
      .update(events)
      .set({ dispatchedAt: new Date(now), claimToken: null, claimExpiresAt: null })
      .where(and(eq(events.claimToken, token), isNull(events.dispatchedAt))),
  );
}

/** Gives claimed events back at once (the queue refused them), rather than when the lease ends. */
export async function releaseClaim(db: Database, token: string): Promise<void> {
  await guardStorage("D1", () =>
    db
      .update(events)
      .set({ claimToken: null, claimExpiresAt: null })
      .where(and(eq(events.claimToken, token), isNull(events.dispatchedAt))),
  );
}
