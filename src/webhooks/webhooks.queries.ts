import { and, asc, eq, gt, gte, inArray, sql } from "drizzle-orm";
import {
  type Database,
  insertedJson,
  isoInstant,
  millis,
  preparedQueries,
  runBatch,
  runOne,
} from "../db/database.ts";
import { accounts, events, webhooks } from "../db/schema.ts";
import { eventColumns, toEvent } from "../events/event-records.ts";
import type { EventTypeSelector } from "../events/events.schemas.ts";
import { endpointWants } from "../events/outbox.ts";
import {
  type IdempotencyClaim,
  keyedStatements,
  type Made,
  type Replayed,
  type Reused,
  runOnce,
  type Stored,
  storedIn,
} from "../idempotency/idempotency.queries.ts";
import { accountOfKey } from "../keys/keys.queries.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { CreatedWebhook, Webhook } from "./webhooks.schemas.ts";
import { MAX_WEBHOOKS } from "./webhooks.schemas.ts";

/** An endpoint's public columns: never its secrets. */
const webhookColumns = {
  id: webhooks.id,
  url: webhooks.url,
  types: webhooks.types,
  status: webhooks.status,
  disabledReason: webhooks.disabledReason,
  createdAt: webhooks.createdAt,
};

interface WebhookRow {
  id: number;
  url: string;
  types: string;
  status: Webhook["status"];
  disabledReason: string | null;
  createdAt: Date;
}

function toWebhook(row: WebhookRow): Webhook {
  const webhook: Webhook = {
    id: row.id,
    url: row.url,
    types: JSON.parse(row.types) as EventTypeSelector[],
    status: row.status,
    createdAt: row.createdAt.toISOString(),
  };
  return row.disabledReason === null ? webhook : { ...webhook, disabledReason: row.disabledReason };
}

/** Who asks: the API key (its hash) whose account it is, or the account itself (the dashboard). */
export type Owner = string | number;

/** Binds the owner: one of the two is set, the other null. */
const ownerValues = (owner: Owner) =>
  typeof owner === "number"
    ? { accountId: owner, apiKeyHash: null }
    : { accountId: null, apiKeyHash: owner };

/** The endpoints' single statements, prepared once per database. */
const endpointQueries = preparedQueries((db: Database) => {
  const account = sql<number>`coalesce(${sql.placeholder("accountId")}, ${accountOfKey(sql.placeholder("apiKeyHash"))})`;
  const ofAccount = and(eq(webhooks.id, sql.placeholder("id")), eq(webhooks.accountId, account));
  const status = sql.placeholder("status");
  return {
    list: db
      .select(webhookColumns)
      .from(webhooks)
      .where(eq(webhooks.accountId, account))
      .orderBy(asc(webhooks.id))
      .prepare(),
    find: db.select(webhookColumns).from(webhooks).where(ofAccount).prepare(),
    rotationTarget: db
      .select({
        ...webhookColumns,
        secret: webhooks.secret,
        previousSecrets: webhooks.previousSecrets,
      })
      .from(webhooks)
      .where(ofAccount)
      .prepare(),
    delete: db.delete(webhooks).where(ofAccount).returning({ id: webhooks.id }).prepare(),
    // A null value leaves its column; a status set also clears the reason the service gave.
    update: db
      .update(webhooks)
      .set({
        url: sql`coalesce(${sql.placeholder("url")}, ${webhooks.url})`,
        types: sql`coalesce(${sql.placeholder("types")}, ${webhooks.types})`,
        status: sql`coalesce(${status}, ${webhooks.status})`,
        disabledReason: sql`CASE WHEN ${status} IS NULL THEN ${webhooks.disabledReason} END`,
      })
      .where(ofAccount)
      .returning(webhookColumns)
      .prepare(),
  };
});

export interface NewEndpoint {
  apiKeyHash: string;
  url: string;
  types: EventTypeSelector[];
  secret: string;
  now: number;
}

export type InsertOutcome = { kind: "created"; webhook: Webhook } | { kind: "limit_reached" };

/** The endpoints' batches, prepared once per database. */
const webhookQueries = preparedQueries((db: Database) => {
  const account = accountOfKey(sql.placeholder("apiKeyHash"));
  /**
   * Adds the endpoint only while the caller's account has fewer than the
   * cap. Count and insert are one statement, so concurrent creates
   * serialise in the database and the cap holds exactly. The endpoint
   * receives the events committed after it: those past the newest sequence
   * number now.
   */
  const insertUnderCap = db.insert(webhooks).select(
    db
      .select({
        id: sql<null>`NULL`.as("id"),
        accountId: accounts.id,
        url: sql<string>`${sql.placeholder("url")}`.as("url"),
        types: sql<string>`${sql.placeholder("types")}`.as("types"),
        secret: sql<string>`${sql.placeholder("secret")}`.as("secret"),
        previousSecrets: sql<string>`'[]'`.as("previous_secrets"),
        status: sql<"enabled">`'enabled'`.as("status"),
        disabledReason: sql<null>`NULL`.as("disabled_reason"),
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
  );
  const owner = db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, account));
  return {
    insertUnderCap: {
      inserted: insertUnderCap.returning(webhookColumns).prepare(),
      owner: owner.prepare(),
    },
    /** The reply, secret included, is stored with the key: a replay shows the same secret. */
    insertOnce: keyedStatements(
      db,
      {
        change: { inserted: insertUnderCap.prepare() },
        events: {},
        reads: { owner: owner.prepare() },
      },
      {
        status: 201,
        body: insertedJson(webhooks, webhooks.id, {
          id: webhooks.id,
          url: webhooks.url,
          types: sql`json(${webhooks.types})`,
          status: webhooks.status,
          createdAt: isoInstant(webhooks.createdAt),
          secret: webhooks.secret,
        }),
      },
    ),
  };
});

/** The cap held: either the key has no account (a defect here), or the account is full. */
function refused(owner: unknown[]): { kind: "limit_reached" } {
  // Every authenticated key has an account row; none here means the data is broken.
  if (owner.length === 0) {
    throw new Error("no account owns the API key, so no endpoint could be added");
  }
  return { kind: "limit_reached" };
}

/** Adds the endpoint under the account's cap. */
export async function insertWebhookUnderCap(
  db: Database,
  endpoint: NewEndpoint,
): Promise<InsertOutcome> {
  const values = { ...endpoint, types: JSON.stringify(endpoint.types) };
  const { inserted, owner } = await guardStorage("D1", () =>
    runBatch(db, webhookQueries(db).insertUnderCap, values),
  );
  const [row] = inserted;
  return row ? { kind: "created", webhook: toWebhook(row) } : refused(owner);
}

/**
 * Adds the endpoint under the cap and stores the reply, secret included,
 * with the Idempotency-Key in one batch: one endpoint per key, and a replay
 * answers with the same secret for as long as the record is kept.
 */
export function insertWebhookOnce(
  db: Database,
  endpoint: NewEndpoint,
  claim: IdempotencyClaim,
): Promise<Stored | Replayed | Reused | { kind: "limit_reached" }> {
  const values = { ...endpoint, types: JSON.stringify(endpoint.types) };
  return runOnce(db, claim, webhookQueries(db).insertOnce, values, (done) =>
    done.stored[0]?.status ? storedIn(done.stored) : refused(done.owner),
  );
}

/** The account's endpoints, oldest first: the account of the caller's key, or one by its id. */
export async function listWebhooks(db: Database, owner: Owner): Promise<Webhook[]> {
  const rows = await guardStorage("D1", () =>
    runOne(db, endpointQueries(db).list, ownerValues(owner)),
  );
  return rows.map(toWebhook);
}

/** The endpoint, if it is the caller's account's. */
export async function findWebhook(
  db: Database,
  owner: Owner,
  id: number,
): Promise<Webhook | undefined> {
  const [row] = await guardStorage("D1", () =>
    runOne(db, endpointQueries(db).find, { ...ownerValues(owner), id }),
  );
  return row && toWebhook(row);
}

/** Deletes the endpoint if it is the caller's account's. */
export async function deleteWebhook(
  db: Database,
  apiKeyHash: string,
  id: number,
): Promise<boolean> {
  const rows = await guardStorage("D1", () =>
    runOne(db, endpointQueries(db).delete, { ...ownerValues(apiKeyHash), id }),
  );
  return rows.length > 0;
}

/** What updateWebhook changes; `enabled` also clears the reason the service gave. */
export interface EndpointChange {
  url?: string | undefined;
  types?: EventTypeSelector[] | undefined;
  enabled?: boolean | undefined;
}

/** Applies the change to the caller's account's endpoint; undefined when it has none by that id. */
export async function updateWebhook(
  db: Database,
  owner: Owner,
  id: number,
  change: EndpointChange,
): Promise<Webhook | undefined> {
  const values = {
    ...ownerValues(owner),
    id,
    url: change.url ?? null,
    types: change.types === undefined ? null : JSON.stringify(change.types),
    status: change.enabled === undefined ? null : change.enabled ? "enabled" : "disabled",
  };
  const [row] = await guardStorage("D1", () => runOne(db, endpointQueries(db).update, values));
  return row && toWebhook(row);
}

/** A secret rotated away, and when deliveries stop being signed with it. */
interface PreviousSecret {
  secret: string;
  until: number;
}

/** How long a rotated secret still signs deliveries. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** The most secrets a delivery is signed with: the newest and the two before it. */
const MAX_SIGNING_SECRETS = 3;

function stillSigning(previous: string, now: number): PreviousSecret[] {
  return (JSON.parse(previous) as PreviousSecret[])
    .filter((old) => old.until > now)
    .slice(0, MAX_SIGNING_SECRETS - 1);
}

/** The endpoint with the columns rotation reads, if it is the caller's account's. */
async function rotationTarget(db: Database, apiKeyHash: string, id: number) {
  const [row] = await guardStorage("D1", () =>
    runOne(db, endpointQueries(db).rotationTarget, { ...ownerValues(apiKeyHash), id }),
  );
  return row;
}

/**
 * Gives the endpoint a new secret; the one it replaces still signs
 * deliveries for 24 hours. The update is conditional on the secret read,
 * so two rotations at once cannot drop a secret: the later one finds it
 * changed and reads again. With a claim, the reply (the new secret
 * included) is stored with the Idempotency-Key in the same batch.
 * Undefined when the account has no such endpoint.
 */
export async function rotateSecret(
  db: Database,
  rotation: { apiKeyHash: string; id: number; secret: string; now: number },
  claim: IdempotencyClaim | undefined,
): Promise<Made<CreatedWebhook> | Stored | Replayed | Reused | undefined> {
  const queries = rotationQueries(db);
  for (;;) {
    const current = await rotationTarget(db, rotation.apiKeyHash, rotation.id);
    if (!current) return undefined;
    const { secret: oldSecret, previousSecrets, ...webhook } = current;
    const previous = [
      { secret: oldSecret, until: rotation.now + SECRET_OVERLAP_MS },
      ...stillSigning(previousSecrets, rotation.now),
    ].slice(0, MAX_SIGNING_SECRETS - 1);
    const values = { ...rotation, oldSecret, previousSecrets: JSON.stringify(previous) };
    if (!claim) {
      const { rotated } = await guardStorage("D1", () => runBatch(db, queries.rotate, values));
      if (rotated.length > 0) {
        return { kind: "made", body: { ...toWebhook(webhook), secret: rotation.secret } };
      }
      continue;
    }
    const outcome = await runOnce(db, claim, queries.rotateOnce, values, (done) =>
      done.stored.length > 0 ? storedIn(done.stored) : undefined,
    );
    if (outcome) return outcome;
  }
}

/** Rotation's statements, prepared once per database. */
const rotationQueries = preparedQueries((db: Database) => {
  const update = db
    .update(webhooks)
    .set({
      secret: sql`${sql.placeholder("secret")}`,
      previousSecrets: sql`${sql.placeholder("previousSecrets")}`,
    })
    .where(
      and(
        eq(webhooks.id, sql.placeholder("id")),
        eq(webhooks.accountId, accountOfKey(sql.placeholder("apiKeyHash"))),
        eq(webhooks.secret, sql.placeholder("oldSecret")),
      ),
    );
  // The endpoint as it is after the change, with its new secret; `disabledReason` only when set.
  const reply = sql<string>`(SELECT json_patch(json_object('id', ${webhooks.id}, 'url', ${webhooks.url}, 'types', json(${webhooks.types}), 'status', ${webhooks.status}, 'createdAt', ${isoInstant(webhooks.createdAt)}, 'secret', ${webhooks.secret}), json_object('disabledReason', ${webhooks.disabledReason})) FROM ${webhooks} WHERE ${webhooks.id} = ${sql.placeholder("id")})`;
  return {
    rotate: { rotated: update.returning({ id: webhooks.id }).prepare() },
    rotateOnce: keyedStatements(
      db,
      { change: { rotated: update.prepare() }, events: {}, reads: {} },
      { status: 200, body: reply },
    ),
  };
});

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
const deliveryQueries = preparedQueries((db: Database) => {
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
