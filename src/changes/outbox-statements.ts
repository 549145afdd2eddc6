import { and, isNull, type Placeholder, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { type Drizzle, databaseNow } from "../db/database.ts";
import { insertWhere } from "../db/insert-where.ts";
import { type EVENT_TYPES, events, webhooks } from "../db/schema.ts";
import type { ShapeInSql } from "../db/shape.ts";

type EventType = (typeof EVENT_TYPES)[number];
type PetStatus = NonNullable<(typeof events.$inferSelect)["previousStatus"]>;

/**
 * The outbox: the statements a change adds to its own D1 batch, so no change
 * commits without its events and no event without its change. Each event row
 * follows the change's statements and is written only when the statement
 * before it changed one row (`changes() = 1`): the change's last statement,
 * or the event before. Its `data` is rendered in SQL from the row the change
 * wrote, by the shape the API renders the resource with.
 */

const ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** A new event id: `evt_` and 26 random lowercase Crockford base32 characters. */
export function newEventId(): string {
  let id = "evt_";
  for (const byte of crypto.getRandomValues(new Uint8Array(26))) id += ID_ALPHABET[byte & 31];
  return id;
}

/**
 * True when the endpoint subscribed to an event of this type, by its kind
 * or its family (`pet.*`), and may see it: the catalogue's events (no
 * account) go to every account, order events only to the order's.
 */
function subscribed(type: SQLWrapper, family: SQLWrapper, accountId: SQLWrapper): SQL {
  return sql`(${accountId} IS NULL OR ${webhooks.accountId} = ${accountId})
  AND EXISTS (SELECT 1 FROM json_each(${webhooks.types}) AS wanted
    WHERE wanted.value IN (${type}, ${family}))`;
}

/**
 * True when the endpoint should receive the event: it existed before the
 * event and subscribed to it. The one rule for which endpoints want an
 * event, used as events are claimed; an event being written applies its
 * second half (see `eventStatement`).
 */
export const endpointWants = sql`${webhooks.afterSeq} < ${events.seq}
  AND ${subscribed(events.type, sql`substr(${events.type}, 1, instr(${events.type}, '.')) || '*'`, events.accountId)}`;

export const noEndpointWants = sql`NOT EXISTS (SELECT 1 FROM ${webhooks} WHERE ${endpointWants})`;

/** Any event, under a name of its own beside the row being written. */
const anyEvent = alias(events, "any_event");

/** True when the event just written, or any other, waits for dispatch (from the partial index of those). */
const eventsWaiting =
  sql<boolean>`(${isNull(events.dispatchedAt)} OR EXISTS (SELECT 1 FROM ${events} AS ${anyEvent} WHERE ${isNull(anyEvent.dispatchedAt)}))`
    .mapWith(Boolean)
    .as("waiting");

/** One event of a change, rendered from the resource's row that `where` finds. */
export interface EventOf {
  type: EventType;
  /** The resource after the change, rendered from its row in the shape's table. */
  data: ShapeInSql;
  where: SQL | undefined;
  /** Who may see it: the account in this column of that row (order.*); every account when absent (the catalogue's kinds). */
  account?: SQLiteColumn;
  /** On pet.status_changed: the status before the change, or the placeholder it is bound to. */
  previousStatus?: PetStatus | Placeholder;
  /** On pet.updated: what changed, as a JSON array. */
  changes?: SQL<string>;
}

/**
 * The statement that writes one event, with the id bound to `idName`, if
 * the statement before it changed one row. An event no endpoint wants is
 * written dispatched, so the change leaves work for the dispatcher only when
 * someone will receive it. Every endpoint that exists as it is written was
 * made before it (an endpoint's `afterSeq` is the sequence's last value when
 * it was made, and the sequence never goes back), so its type and account
 * alone decide; an endpoint made later never receives it.
 *
 * It returns whether events wait for dispatch, this one or any an earlier
 * change left (a dispatch that failed): one probe of the partial index of
 * undispatched events, so the common change, with nobody listening, costs
 * no further call to D1, and the next change that writes an event sends
 * what waits.
 */
export function eventStatement(db: Drizzle, event: EventOf, idName: string) {
  const family = `${event.type.slice(0, event.type.indexOf(".") + 1)}*`;
  const accountId = event.account ?? sql`NULL`;
  const wanted = sql`EXISTS (SELECT 1 FROM ${webhooks} WHERE ${subscribed(sql`${event.type}`, sql`${family}`, accountId)})`;
  return insertWhere(db, events, {
    row: {
      seq: sql<null>`NULL`.as("seq"),
      id: sql<string>`${sql.placeholder(idName)}`.as("id"),
      type: sql<EventType>`${event.type}`.as("type"),
      accountId: sql<number | null>`${accountId}`.as("account_id"),
      data: event.data.json.as("data"),
      previousStatus: sql<PetStatus | null>`${event.previousStatus ?? null}`.as("previous_status"),
      changes: sql<string | null>`${event.changes ?? null}`.as("changes"),
      createdAt: databaseNow.as("created_at"),
      dispatchedAt: sql<number | null>`CASE WHEN ${wanted} THEN NULL ELSE ${databaseNow} END`.as(
        "dispatched_at",
      ),
      claimToken: sql<null>`NULL`.as("claim_token"),
      claimExpiresAt: sql<null>`NULL`.as("claim_expires_at"),
    },
    from: event.data.table,
    where: and(event.where, sql`changes() = 1`),
  })
    .returning({ waiting: eventsWaiting })
    .prepare();
}
