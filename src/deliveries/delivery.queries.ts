import { eq, inArray, sql } from "drizzle-orm";
import { type Database, type Drizzle, preparedQueries, runOne } from "../db/database.ts";
import { events, webhooks } from "../db/schema.ts";
import { eventColumns, toEvent } from "../events/event-records.ts";
import { signingSecrets } from "../webhooks/webhook-secrets.ts";

/*
 * What an endpoint's delivering object reads in D1 before its attempts. It
 * writes nothing there: a change of the endpoint's state goes through the
 * endpoints' one writer (webhooks/endpoint-changes.ts).
 */

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
    secrets: signingSecrets(row.secret, row.previousSecrets, now),
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

/** What endpoints' objects read as they deliver, prepared once per database. */
const deliveryQueries = preparedQueries((db: Drizzle) => ({
  endpoint: db
    .select({
      url: webhooks.url,
      secret: webhooks.secret,
      previousSecrets: webhooks.previousSecrets,
      status: webhooks.status,
    })
    .from(webhooks)
    .where(eq(webhooks.id, sql.placeholder("id")))
    .prepare(),
  // A list of ids binds as one JSON array, so one statement serves any list.
  eventBodies: db
    .select(eventColumns)
    .from(events)
    .where(inArray(events.id, sql`(SELECT value FROM json_each(${sql.placeholder("ids")}))`))
    .prepare(),
}));
