import { and, asc, eq, gt, gte, inArray, sql } from "drizzle-orm";
import { type Database, type Drizzle, millis, preparedQueries, runOne } from "../db/database.ts";
import { events, webhooks } from "../db/schema.ts";
import { eventColumns, toEvent } from "../events/event-records.ts";
import { endpointWants } from "../events/outbox.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import { stillSigning } from "./webhooks.queries.ts";

/** What an endpoint's delivering object reads and writes in D1, apart from the endpoints' API. */

/** The endpoint as its object sends to it: address, signing secrets newest first, status. */
export interface EndpointForDelivery {
  url: string;
  secrets: string[];
  enabled: boolean;
}

/** Undefined when the endpoint was deleted. */
export async function findEndpointForDelivery(
  db: Database,
  id: number,
  now: number,
): Promise<EndpointForDelivery | undefined> {
  const [row] = await runOne(db, deliveryQueries(db).endpoint, { id });
  if (!row) return undefined;
  return {
    url: row.url,
    secrets: [row.secret, ...stillSigning(row.previousSecrets, now).map((old) => old.secret)],
    enabled: row.status === "enabled",
  };
}

/** The events' JSON as delivered, by id; an event past retention is missing. */
export async function findEventBodies(
  db: Database,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const rows = await runOne(db, deliveryQueries(db).eventBodies, { ids: JSON.stringify(ids) });
  return new Map(rows.map((row) => [row.id, JSON.stringify(toEvent(row))]));
}

/** The service disables an endpoint (410 Gone, or failing for days), unless it is disabled already. */
export async function disableWebhook(db: Database, id: number, reason: string): Promise<void> {
  await runOne(db, deliveryQueries(db).disable, { id, reason });
}

/**
 * The ids of a page of events since `since` that the endpoint wants, in
 * commit order after `afterSeq`, with the last one's position.
 */
export async function wantedEventsSince(
  db: Database,
  query: { webhookId: number; since: number; afterSeq: number; limit: number },
): Promise<{ ids: string[]; lastSeq: number | undefined }> {
  const rows = await guardStorage("D1", () => runOne(db, deliveryQueries(db).wantedSince, query));
  return { ids: rows.map((row) => row.id), lastSeq: rows.at(-1)?.seq };
}

/** What endpoints' objects read and write as they deliver, prepared once per database. */
const deliveryQueries = preparedQueries((db: Drizzle) => {
  const byId = eq(webhooks.id, sql.placeholder("id"));
  return {
    endpoint: db
      .select({
        url: webhooks.url,
        secret: webhooks.secret,
        previousSecrets: webhooks.previousSecrets,
        status: webhooks.status,
      })
      .from(webhooks)
      .where(byId)
      .prepare(),
    // A list of ids binds as one JSON array, so one statement serves any list.
    eventBodies: db
      .select(eventColumns)
      .from(events)
      .where(inArray(events.id, sql`(SELECT value FROM json_each(${sql.placeholder("ids")}))`))
      .prepare(),
    disable: db
      .update(webhooks)
      .set({ status: "disabled", disabledReason: sql`${sql.placeholder("reason")}` })
      .where(and(byId, eq(webhooks.status, "enabled")))
      .prepare(),
    wantedSince: db
      .select({ id: events.id, seq: events.seq })
      .from(events)
      .innerJoin(webhooks, eq(webhooks.id, sql.placeholder("webhookId")))
      .where(
        and(
          gt(events.seq, sql.placeholder("afterSeq")),
          gte(events.createdAt, millis("since")),
          endpointWants,
        ),
      )
      .orderBy(asc(events.seq))
      .limit(sql.placeholder("limit"))
      .prepare(),
  };
});
