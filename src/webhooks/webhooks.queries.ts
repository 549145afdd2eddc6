import { and, asc, eq, gt, lt, sql } from "drizzle-orm";
import { type Database, millis, preparedQueries, runBatch } from "../db/database.ts";
import { accounts, deliveryAttempts, events, webhooks } from "../db/schema.ts";
import { type EventRow, eventColumns } from "../events/event-records.ts";
import type { EventTypeSelector } from "../events/events.schemas.ts";
import { accountOfKey } from "../keys/keys.queries.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { Delivery, Webhook } from "./webhooks.schemas.ts";
import { MAX_WEBHOOKS } from "./webhooks.schemas.ts";

/** An endpoint's public columns: never its secret. */
const webhookColumns = {
  id: webhooks.id,
  url: webhooks.url,
  types: webhooks.types,
  createdAt: webhooks.createdAt,
};

interface WebhookRow {
  id: number;
  url: string;
  types: string;
  createdAt: Date;
}

function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    types: JSON.parse(row.types) as EventTypeSelector[],
    createdAt: row.createdAt.toISOString(),
  };
}

export interface NewEndpoint {
  apiKeyHash: string;
  url: string;
  types: EventTypeSelector[];
  secret: string;
  now: number;
}

export type InsertOutcome = { kind: "created"; webhook: Webhook } | { kind: "limit_reached" };

/**
 * Adds the endpoint only while the caller's account has fewer than the cap.
 * Count and insert are one statement, so concurrent creates serialise in the
 * database and the cap holds exactly. The endpoint receives the events
 * committed after it: those past the newest sequence number now.
 */
export async function insertWebhookUnderCap(
  db: Database,
  endpoint: NewEndpoint,
): Promise<InsertOutcome> {
  const values = { ...endpoint, types: JSON.stringify(endpoint.types) };
  const { inserted, owner } = await guardStorage("D1", () =>
    runBatch(db, webhookQueries(db).insertUnderCap, values),
  );
  const [row] = inserted;
  if (row) return { kind: "created", webhook: toWebhook(row) };
  // Every authenticated key has an account row; none here means the data is broken.
  if (owner.length === 0)
    throw new Error("no account owns the API key, so no endpoint could be added");
  return { kind: "limit_reached" };
}

/** The account's endpoints, oldest first. */
export async function listWebhooks(db: Database, apiKeyHash: string): Promise<Webhook[]> {
  const rows = await guardStorage("D1", () =>
    db
      .select(webhookColumns)
      .from(webhooks)
      .where(eq(webhooks.accountId, accountOfKey(apiKeyHash)))
      .orderBy(asc(webhooks.id)),
  );
  return rows.map(toWebhook);
}

/** Deletes the endpoint if it is the caller's account's; its attempts go with it. */
export async function deleteWebhook(
  db: Database,
  apiKeyHash: string,
  id: number,
): Promise<boolean> {
  const rows = await guardStorage("D1", () =>
    db
      .delete(webhooks)
      .where(and(eq(webhooks.id, id), eq(webhooks.accountId, accountOfKey(apiKeyHash))))
      .returning({ id: webhooks.id }),
  );
  return rows.length > 0;
}

const deliveryColumns = {
  id: deliveryAttempts.id,
  eventId: deliveryAttempts.eventId,
  attempt: deliveryAttempts.attempt,
  attemptedAt: deliveryAttempts.attemptedAt,
  outcome: deliveryAttempts.outcome,
  responseStatus: deliveryAttempts.responseStatus,
  error: deliveryAttempts.error,
  nextRetryAt: deliveryAttempts.nextRetryAt,
};

interface DeliveryRow {
  id: number;
  eventId: string;
  attempt: number;
  attemptedAt: Date;
  outcome: Delivery["outcome"];
  responseStatus: number | null;
  error: string | null;
  nextRetryAt: Date | null;
}

function toDelivery(row: DeliveryRow): Delivery {
  return {
    ...row,
    attemptedAt: row.attemptedAt.toISOString(),
    nextRetryAt: row.nextRetryAt?.toISOString() ?? null,
  };
}

/** The endpoints' batches, prepared once per database. */
const webhookQueries = preparedQueries((db: Database) => {
  const account = accountOfKey(sql.placeholder("apiKeyHash"));
  return {
    insertUnderCap: {
      inserted: db
        .insert(webhooks)
        .select(
          db
            .select({
              id: sql<null>`NULL`.as("id"),
              accountId: accounts.id,
              url: sql<string>`${sql.placeholder("url")}`.as("url"),
              types: sql<string>`${sql.placeholder("types")}`.as("types"),
              secret: sql<string>`${sql.placeholder("secret")}`.as("secret"),
              afterSeq: sql<number>`coalesce((SELECT max(${events.seq}) FROM ${events}), 0)`.as(
                "after_seq",
              ),
              createdAt: millis("now").as("created_at"),
            })
            .from(accounts)
            .where(
              and(
                eq(accounts.id, account),
                sql`(SELECT count(*) FROM ${webhooks} WHERE ${webhooks.accountId} = ${accounts.id}) < ${MAX_WEBHOOKS}`,
              ),
            ),
        )
        .returning(webhookColumns)
        .prepare(),
      owner: db
        .select({ id: accounts.id })
        .from(accounts)
        .where(eq(accounts.id, account))
        .prepare(),
    },
    /** A page of an endpoint's attempts, read with the check that the endpoint is the caller's account's. */
    deliveryPage: {
      endpoint: db
        .select({ id: webhooks.id })
        .from(webhooks)
        .where(and(eq(webhooks.id, sql.placeholder("webhookId")), eq(webhooks.accountId, account)))
        .prepare(),
      attempts: db
        .select(deliveryColumns)
        .from(deliveryAttempts)
        .where(
          and(
            eq(deliveryAttempts.webhookId, sql.placeholder("webhookId")),
            gt(deliveryAttempts.id, sql.placeholder("afterId")),
          ),
        )
        .orderBy(asc(deliveryAttempts.id))
        .limit(sql.placeholder("limit"))
        .prepare(),
    },
  };
});

export interface DeliveryPageQuery {
  apiKeyHash: string;
  webhookId: number;
  afterId: number;
  limit: number;
}

export interface DeliveryPage {
  deliveries: Delivery[];
  hasMore: boolean;
}

/**
 * One page of an endpoint's attempts, oldest first, read with the check
 * that the endpoint is the caller's account's (undefined when it is not).
 */
export async function listDeliveries(
  db: Database,
  query: DeliveryPageQuery,
): Promise<DeliveryPage | undefined> {
  const { endpoint, attempts } = await guardStorage("D1", () =>
    runBatch(db, webhookQueries(db).deliveryPage, { ...query, limit: query.limit + 1 }),
  );
  if (endpoint.length === 0) return undefined;
  return {
    deliveries: attempts.slice(0, query.limit).map(toDelivery),
    hasMore: attempts.length > query.limit,
  };
}

/** An endpoint as the dashboard lists it: with the outcome of its latest attempt, if any. */
export interface WebhookWithLastDelivery extends Webhook {
  lastDelivery: Pick<Delivery, "outcome" | "attemptedAt" | "responseStatus" | "error"> | null;
}

/** The account's endpoints, oldest first, each with its latest attempt. */
export async function listWebhooksWithLastDelivery(
  db: Database,
  accountId: number,
): Promise<WebhookWithLastDelivery[]> {
  const latest = sql`(SELECT max(latest.id) FROM ${deliveryAttempts} AS latest WHERE latest.webhook_id = ${webhooks.id})`;
  const rows = await guardStorage("D1", () =>
    db
      .select({
        ...webhookColumns,
        outcome: deliveryAttempts.outcome,
        attemptedAt: deliveryAttempts.attemptedAt,
        responseStatus: deliveryAttempts.responseStatus,
        error: deliveryAttempts.error,
      })
      .from(webhooks)
      .leftJoin(deliveryAttempts, eq(deliveryAttempts.id, latest))
      .where(eq(webhooks.accountId, accountId))
      .orderBy(asc(webhooks.id)),
  );
  return rows.map(({ outcome, attemptedAt, responseStatus, error, ...row }) => ({
    ...toWebhook(row),
    lastDelivery:
      outcome === null || attemptedAt === null
        ? null
        : { outcome, attemptedAt: attemptedAt.toISOString(), responseStatus, error },
  }));
}

/** What the queue consumer needs to make one delivery: the event, and where and how to send it. */
export interface DeliveryTarget {
  event: EventRow;
  url: string;
  secret: string;
}

/** The event and the endpoint, or undefined when either is gone (deleted, or past retention). */
export async function findDeliveryTarget(
  db: Database,
  eventId: string,
  webhookId: number,
): Promise<DeliveryTarget | undefined> {
  const row = await guardStorage("D1", () =>
    db
      .select({ ...eventColumns, url: webhooks.url, secret: webhooks.secret })
      .from(events)
      .innerJoin(webhooks, eq(webhooks.id, webhookId))
      .where(eq(events.id, eventId))
      .get(),
  );
  if (!row) return undefined;
  const { url, secret, ...event } = row;
  return { event, url, secret };
}

export interface AttemptRecord {
  webhookId: number;
  eventId: string;
  attempt: number;
  attemptedAt: number;
  outcome: Delivery["outcome"];
  responseStatus: number | null;
  error: string | null;
  nextRetryAt: number | null;
}

/** Records one attempt, unless its endpoint was deleted meanwhile. */
export async function recordAttempt(db: Database, record: AttemptRecord): Promise<void> {
  await guardStorage("D1", () =>
    db.insert(deliveryAttempts).select(
      db
        .select({
          id: sql<null>`NULL`.as("id"),
          webhookId: webhooks.id,
          eventId: sql<string>`${record.eventId}`.as("event_id"),
          attempt: sql<number>`${record.attempt}`.as("attempt"),
          attemptedAt: sql<number>`${record.attemptedAt}`.as("attempted_at"),
          outcome: sql<string>`${record.outcome}`.as("outcome"),
          responseStatus: sql<number | null>`${record.responseStatus}`.as("response_status"),
          error: sql<string | null>`${record.error}`.as("error"),
          nextRetryAt: sql<number | null>`${record.nextRetryAt}`.as("next_retry_at"),
        })
        .from(webhooks)
        .where(eq(webhooks.id, record.webhookId)),
    ),
  );
}

/** Removes attempts past the events' retention period; run by the scheduled job. */
export async function deleteExpiredAttempts(db: Database, before: number): Promise<number> {
  const result = await guardStorage("D1", () =>
    db.delete(deliveryAttempts).where(lt(deliveryAttempts.attemptedAt, new Date(before))),
  );
  return result.meta.changes;
}
