import { and, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { type Database, databaseNow } from "../db/database.ts";
import { events, webhooks } from "../db/schema.ts";
import type { PetStatus } from "../pets/pets.schemas.ts";
import type { EventType } from "./events.schemas.ts";

/**
 * The outbox: the statements a change adds to its own D1 batch, so no change
 * commits without its events and no event without its change. Each event row
 * follows the change's statements and is written only when the statement
 * before it changed one row (`changes() = 1`): the change's last statement,
 * or the event before. Its `data` is rendered in SQL from the row the change
 * wrote, by the fields the API reads the resource with.
 */

/** What a change's batch tells besides its result: whether events now wait for dispatch. */
export interface ChangeEvents {
  eventsWaiting: boolean;
}

const ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** A new event id: `evt_` and 26 random lowercase Crockford base32 characters. */
export function newEventId(): string {
  let id = "evt_";
  for (const byte of crypto.getRandomValues(new Uint8Array(26))) id += ID_ALPHABET[byte & 31];
  return id;
}

/**
 * True when the endpoint should receive the event: it existed before the
 * event, subscribed to its kind or family, and may see it (pet events go to
 * every account, order events only to the order's). The one rule for which
 * endpoints want an event, used as events are written and as they are claimed.
 */
export const endpointWants = sql`${webhooks.afterSeq} < ${events.seq}
  AND (${events.accountId} IS NULL OR ${webhooks.accountId} = ${events.accountId})
  AND EXISTS (SELECT 1 FROM json_each(${webhooks.types}) AS wanted
    WHERE wanted.value = ${events.type}
      OR wanted.value = substr(${events.type}, 1, instr(${events.type}, '.')) || '*')`;

export const noEndpointWants = sql`NOT EXISTS (SELECT 1 FROM ${webhooks} WHERE ${endpointWants})`;

/** One event of a change, read from the resource row `where` finds in `from`. */
export interface EventOf {
  /** The placeholder its id is bound to. */
  idName: string;
  type: EventType | SQL<string>;
  /** Who may see it: the order's account for order.*, everyone (null) for pet.*. */
  accountId: SQL<number> | null;
  data: SQL<string>;
  previousStatus: PetStatus | null;
  from: SQLiteTable;
  where: SQL | undefined;
}

/** The statement that writes one event, if the statement before it changed one row. */
export function eventStatement(db: Database, event: EventOf) {
  return db
    .insert(events)
    .select(
      db
        .select({
          seq: sql<null>`NULL`.as("seq"),
          id: sql<string>`${sql.placeholder(event.idName)}`.as("id"),
          type: sql<EventType>`${event.type}`.as("type"),
          accountId: sql<number | null>`${event.accountId}`.as("account_id"),
          data: event.data.as("data"),
          previousStatus: sql<PetStatus | null>`${event.previousStatus}`.as("previous_status"),
          createdAt: databaseNow.as("created_at"),
          dispatchedAt: sql<null>`NULL`.as("dispatched_at"),
          claimToken: sql<null>`NULL`.as("claim_token"),
          claimExpiresAt: sql<null>`NULL`.as("claim_expires_at"),
        })
        .from(event.from)
        .where(and(event.where, sql`changes() = 1`)),
    )
    .prepare();
}

/**
 * Marks the change's events that no endpoint wants as dispatched at once:
 * the change leaves work for the dispatcher only when someone will receive
 * it. An endpoint made later never receives older events (its `afterSeq`),
 * so the decision cannot go stale.
 */
export function settleUnwantedStatement(db: Database, idNames: readonly string[]) {
  return db
    .update(events)
    .set({ dispatchedAt: sql`${events.createdAt}` })
    .where(
      and(
        inArray(
          events.id,
          idNames.map((name) => sql.placeholder(name)),
        ),
        noEndpointWants,
      ),
    )
    .prepare();
}

/**
 * The last statement of every change's batch: one probe of the partial index
 * of undispatched events, so the common change, with nobody listening, costs
 * no further call to D1.
 */
export function eventsWaitingStatement(db: Database) {
  return db
    .select({ waiting: sql<number>`1` })
    .from(events)
    .where(isNull(events.dispatchedAt))
    .limit(1)
    .prepare();
}
