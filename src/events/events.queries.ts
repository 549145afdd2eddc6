import { and, asc, eq, gt, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { events, webhooks } from "../db/schema.ts";
import { accountOfKey } from "../keys/keys.queries.ts";
import type { PetStatus } from "../pets/pets.schemas.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { Event, EventType } from "./events.schemas.ts";

/** How long events stay in the feed, and so how long a delivery can be retried. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** The columns an event is read with, for the feed and for a delivery. */
export const eventColumns = {
  seq: events.seq,
  id: events.id,
  type: events.type,
  data: events.data,
  previousStatus: events.previousStatus,
  createdAt: events.createdAt,
};

export interface EventRow {
  seq: number;
  id: string;
  type: EventType;
  data: string;
  previousStatus: PetStatus | null;
  createdAt: Date;
}

/** An event as the feed lists it and a webhook delivers it. */
export function toEvent(row: EventRow): Event {
  const event = {
    id: row.id,
    type: row.type,
    createdAt: row.createdAt.toISOString(),
    data: JSON.parse(row.data),
  };
  return (
    row.previousStatus === null ? event : { ...event, previousStatus: row.previousStatus }
  ) as Event;
}

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

/** One queue message: deliver this event to this endpoint. */
export interface DeliveryMessage {
  eventId: string;
  webhookId: number;
}

/**
 * SQL that is true when the endpoint should receive the event: it existed
 * before the event, subscribed to its kind or family, and may see it (pet
 * events go to every account, order events only to the order's).
 */
export const endpointWants = sql`${webhooks.afterSeq} < ${events.seq}
  AND (${events.accountId} IS NULL OR ${webhooks.accountId} = ${events.accountId})
  AND EXISTS (SELECT 1 FROM json_each(${webhooks.types}) AS wanted
    WHERE wanted.value = ${events.type}
      OR wanted.value = substr(${events.type}, 1, instr(${events.type}, '.')) || '*')`;

export interface Claim {
  /** Events taken: when fewer than asked, none are left waiting. */
  events: number;
  /** The deliveries those events make, for the queue. */
  deliveries: DeliveryMessage[];
}

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
  const mine = and(eq(events.claimToken, claim.token), isNull(events.dispatchedAt));
  const waiting = db
    .select({ seq: events.seq })
    .from(events)
    .where(
      and(
        isNull(events.dispatchedAt),
        or(isNull(events.claimExpiresAt), lte(events.claimExpiresAt, new Date(claim.now))),
      ),
    )
    .orderBy(asc(events.seq))
    .limit(claim.limit);
  const [claimed, , deliveries] = await guardStorage("D1", () =>
    db.batch([
      db
        .update(events)
        .set({ claimToken: claim.token, claimExpiresAt: new Date(claim.now + claim.leaseMs) })
        .where(inArray(events.seq, waiting))
        .returning({ seq: events.seq }),
      db
        .update(events)
        .set({ dispatchedAt: new Date(claim.now), claimToken: null, claimExpiresAt: null })
        .where(and(mine, sql`NOT EXISTS (SELECT 1 FROM ${webhooks} WHERE ${endpointWants})`)),
      db
        .select({ eventId: events.id, webhookId: sql<number>`${webhooks.id}`.as("webhook_id") })
        .from(events)
        .innerJoin(webhooks, endpointWants)
        .where(mine)
        .orderBy(asc(events.seq), asc(webhooks.id)),
    ]),
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
