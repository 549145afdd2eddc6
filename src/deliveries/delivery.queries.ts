import { eq, inArray, sql } from "drizzle-orm";
import {
  type Database,
  type Drizzle,
  preparedQueries,
  type ResultOf,
  runAll,
  runOne,
} from "../db/database.ts";
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

/** What one read for a round of deliveries found. */
interface DeliveryReading {
  /** The endpoint when asked for; null when it was deleted. */
  endpoint?: EndpointForDelivery | null;
  /** The events' JSON as delivered, by id; an event past retention is missing. */
  bodies: Map<string, string>;
}

type Queries = ReturnType<typeof deliveryQueries>;

function toEndpoint([row]: ResultOf<Queries["endpoint"]>, now: number): EndpointForDelivery | null {
  if (!row) return null;
  return {
    url: row.url,
    secrets: signingSecrets(row.secret, row.previousSecrets, now),
    enabled: row.status === "enabled",
  };
}

const toBodies = (rows: ResultOf<Queries["eventBodies"]>) =>
  new Map(rows.map((row) => [row.id, JSON.stringify(toEvent(row))]));

/**
 * Reads what a round of deliveries lacks, in one round trip to D1: the
 * endpoint (`webhookId`, its secrets as of `now`), the events `eventIds`,
 * or both, as one batch.
 */
export async function readForDelivery(
  db: Database,
  wanted: { webhookId?: number; now: number; eventIds: readonly string[] },
): Promise<DeliveryReading> {
  const queries = deliveryQueries(db);
  const values = { id: wanted.webhookId, ids: JSON.stringify(wanted.eventIds) };
  if (wanted.webhookId === undefined) {
    return { bodies: toBodies(await runOne(db, queries.eventBodies, values)) };
  }
  if (wanted.eventIds.length === 0) {
    return {
      endpoint: toEndpoint(await runOne(db, queries.endpoint, values), wanted.now),
      bodies: new Map(),
    };
  }
  const [endpoint, bodies] = (await runAll(
    db,
    [queries.endpoint, queries.eventBodies],
    values,
  )) as [ResultOf<Queries["endpoint"]>, ResultOf<Queries["eventBodies"]>];
  return { endpoint: toEndpoint(endpoint, wanted.now), bodies: toBodies(bodies) };
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
