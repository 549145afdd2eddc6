import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { change } from "../changes/change.ts";
import { endpointWants, noEndpointWants } from "../changes/outbox-statements.ts";
import { type Database, type Drizzle, millis, preparedQueries, runOne } from "../db/database.ts";
import { events, webhooks } from "../db/schema.ts";
import { guardStorage } from "../storage/storage-guard.ts";

/*
 * The relay's side of the outbox: claiming the events that wait for their
 * deliveries to be queued, marking them sent, or giving them back.
 */

/** One queue message: deliver these events (in commit order, at most 100) to this endpoint. */
export interface DeliveryMessage {
  webhookId: number;
  eventIds: string[];
}

/** One delivery a claim makes: this event to this endpoint. */
interface Delivery {
  eventId: string;
  webhookId: number;
}

interface EventClaim {
  /** Events taken: when fewer than asked, none are left waiting. */
  events: number;
  /** The deliveries those events make, in commit order, for the queue. */
  deliveries: Delivery[];
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

/** The claim's statements, prepared once per database. */
const claimQueries = preparedQueries((db: Drizzle) => ({
  dispatched: db
    .update(events)
    .set({ dispatchedAt: millis("now"), claimToken: null, claimExpiresAt: null })
    .where(mine)
    .prepare(),
  released: db.update(events).set({ claimToken: null, claimExpiresAt: null }).where(mine).prepare(),
}));

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
): Promise<EventClaim> {
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
  await guardStorage("D1", () => runOne(db, claimQueries(db).dispatched, { token, now }));
}

/** Gives claimed events back at once (the queue refused them), rather than when the lease ends. */
export async function releaseClaim(db: Database, token: string): Promise<void> {
  await guardStorage("D1", () => runOne(db, claimQueries(db).released, { token }));
}
