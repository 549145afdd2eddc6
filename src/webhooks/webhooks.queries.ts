import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { accounts, events, webhooks } from "../db/schema.ts";
import { endpointWants, eventColumns, toEvent } from "../events/events.queries.ts";
import type { EventTypeSelector } from "../events/events.schemas.ts";
import {
  type IdempotencyClaim,
  idempotencyStatements,
  type Replayed,
  type Reused,
  responseOf,
  runOnce,
  type Stored,
} from "../idempotency/idempotency.queries.ts";
import { accountOfKey } from "../keys/keys.queries.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { Webhook } from "./webhooks.schemas.ts";
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

const ofAccount = (apiKeyHash: string, id: number) =>
  and(eq(webhooks.id, id), eq(webhooks.accountId, accountOfKey(apiKeyHash)));

export interface NewEndpoint {
  apiKeyHash: string;
  url: string;
  types: EventTypeSelector[];
  secret: string;
  now: number;
}

export type InsertOutcome = { kind: "created"; webhook: Webhook } | { kind: "limit_reached" };

/**
 * The insert that adds the endpoint only while the caller's account has
 * fewer than the cap. Count and insert are one statement, so concurrent
 * creates serialise in the database and the cap holds exactly. The endpoint
 * receives the events committed after it: those past the newest sequence
 * number now.
 */
function insertUnderCap(db: Database, endpoint: NewEndpoint) {
  return db.insert(webhooks).select(
    db
      .select({
        id: sql<null>`NULL`.as("id"),
        accountId: accounts.id,
        url: sql<string>`${endpoint.url}`.as("url"),
        types: sql<string>`${JSON.stringify(endpoint.types)}`.as("types"),
        secret: sql<string>`${endpoint.secret}`.as("secret"),
        previousSecrets: sql<string>`'[]'`.as("previous_secrets"),
        status: sql<"enabled">`'enabled'`.as("status"),
        disabledReason: sql<null>`NULL`.as("disabled_reason"),
        afterSeq: sql<number>`coalesce((SELECT max(${events.seq}) FROM ${events}), 0)`.as(
          "after_seq",
        ),
        createdAt: sql<number>`${endpoint.now}`.as("created_at"),
      })
      .from(accounts)
      .where(
        and(
          eq(accounts.id, accountOfKey(endpoint.apiKeyHash)),
          sql`(SELECT count(*) FROM ${webhooks} WHERE ${webhooks.accountId} = ${accounts.id}) < ${MAX_WEBHOOKS}`,
        ),
      ),
  );
}

const ownerOf = (db: Database, apiKeyHash: string) =>
  db
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(accounts.id, accountOfKey(apiKeyHash)));

/** The cap held: either the key has no account (a defect here), or it is full. */
function refused(owner: { id: number } | undefined): { kind: "limit_reached" } {
  // Only a key D1 does not hold (one that still awaits the KV import) has no account.
  if (!owner) throw new Error("no account owns the API key, so no endpoint could be added");
  return { kind: "limit_reached" };
}

/** Adds the endpoint under the account's cap. */
export async function insertWebhookUnderCap(
  db: Database,
  endpoint: NewEndpoint,
): Promise<InsertOutcome> {
  const [inserted, [owner]] = await guardStorage("D1", () =>
    db.batch([
      insertUnderCap(db, endpoint).returning(webhookColumns),
      ownerOf(db, endpoint.apiKeyHash),
    ]),
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
  const keyed = idempotencyStatements(db, claim);
  const reply = {
    url: endpoint.url,
    types: endpoint.types,
    status: "enabled",
    createdAt: new Date(endpoint.now).toISOString(),
    secret: endpoint.secret,
  };
  return runOnce(
    db,
    claim,
    () =>
      db.batch([
        ...keyed.claim,
        insertUnderCap(db, endpoint),
        ...keyed.settle(201, reply),
        ownerOf(db, endpoint.apiKeyHash),
      ]),
    ([, , , , , [stored], [owner]]) =>
      stored ? ({ kind: "stored", response: responseOf(stored) } as const) : refused(owner),
  );
}

/** The account's endpoints, oldest first: the account of the caller's key, or one by its id. */
export async function listWebhooks(db: Database, account: string | number): Promise<Webhook[]> {
  const accountId = typeof account === "number" ? account : accountOfKey(account);
  const rows = await guardStorage("D1", () =>
    db
      .select(webhookColumns)
      .from(webhooks)
      .where(eq(webhooks.accountId, accountId))
      .orderBy(asc(webhooks.id)),
  );
  return rows.map(toWebhook);
}

/** The endpoint, if it is the caller's account's. */
export async function findWebhook(
  db: Database,
  apiKeyHash: string,
  id: number,
): Promise<Webhook | undefined> {
  const row = await guardStorage("D1", () =>
    db.select(webhookColumns).from(webhooks).where(ofAccount(apiKeyHash, id)).get(),
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
    db.delete(webhooks).where(ofAccount(apiKeyHash, id)).returning({ id: webhooks.id }),
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
  apiKeyHash: string,
  id: number,
  change: EndpointChange,
): Promise<Webhook | undefined> {
  const status = change.enabled === undefined ? {} : statusColumns(change.enabled);
  const rows = await guardStorage("D1", () =>
    db
      .update(webhooks)
      .set({
        ...(change.url === undefined ? {} : { url: change.url }),
        ...(change.types === undefined ? {} : { types: JSON.stringify(change.types) }),
        ...status,
      })
      .where(ofAccount(apiKeyHash, id))
      .returning(webhookColumns),
  );
  const [row] = rows;
  return row && toWebhook(row);
}

function statusColumns(enabled: boolean) {
  return { status: enabled ? ("enabled" as const) : ("disabled" as const), disabledReason: null };
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
function rotationTarget(db: Database, apiKeyHash: string, id: number) {
  return guardStorage("D1", () =>
    db
      .select({
        ...webhookColumns,
        secret: webhooks.secret,
        previousSecrets: webhooks.previousSecrets,
      })
      .from(webhooks)
      .where(ofAccount(apiKeyHash, id))
      .get(),
  );
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
): Promise<Stored | Replayed | Reused | undefined> {
  for (;;) {
    const current = await rotationTarget(db, rotation.apiKeyHash, rotation.id);
    if (!current) return undefined;
    const { secret: oldSecret, previousSecrets, ...webhook } = current;
    const previous = [
      { secret: oldSecret, until: rotation.now + SECRET_OVERLAP_MS },
      ...stillSigning(previousSecrets, rotation.now),
    ].slice(0, MAX_SIGNING_SECRETS - 1);
    const update = db
      .update(webhooks)
      .set({ secret: rotation.secret, previousSecrets: JSON.stringify(previous) })
      .where(and(ofAccount(rotation.apiKeyHash, rotation.id), eq(webhooks.secret, oldSecret)));
    const reply = { ...toWebhook(webhook), secret: rotation.secret };
    if (!claim) {
      const rows = await guardStorage("D1", () => update.returning({ id: webhooks.id }));
      if (rows.length > 0) return { kind: "stored", response: { status: 200, body: reply } };
      continue;
    }
    const keyed = idempotencyStatements(db, claim);
    const outcome = await runOnce(
      db,
      claim,
      () => db.batch([...keyed.claim, update, ...keyed.settle(200, reply)]),
      ([, , , , , [stored]]) =>
        stored ? ({ kind: "stored", response: responseOf(stored) } as const) : undefined,
    );
    if (outcome) return outcome;
  }
}

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
  const row = await db
    .select({
      url: webhooks.url,
      secret: webhooks.secret,
      previousSecrets: webhooks.previousSecrets,
      status: webhooks.status,
    })
    .from(webhooks)
    .where(eq(webhooks.id, id))
    .get();
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
  const rows = await db
    .select(eventColumns)
    .from(events)
    .where(inArray(events.id, [...ids]));
  return new Map(rows.map((row) => [row.id, JSON.stringify(toEvent(row))]));
}

/** The service disables an endpoint (410 Gone, or failing for days), unless it is disabled already. */
export async function disableWebhook(db: Database, id: number, reason: string): Promise<void> {
  await db
    .update(webhooks)
    .set({ status: "disabled", disabledReason: reason })
    .where(and(eq(webhooks.id, id), eq(webhooks.status, "enabled")));
}

/**
 * The ids of a page of events since `since` that the endpoint wants, in
 * commit order after `afterSeq`, with the last one's position.
 */
export async function wantedEventsSince(
  db: Database,
  query: { webhookId: number; since: number; afterSeq: number; limit: number },
): Promise<{ ids: string[]; lastSeq: number | undefined }> {
  const rows = await guardStorage("D1", () =>
    db
      .select({ id: events.id, seq: events.seq })
      .from(events)
      .innerJoin(webhooks, eq(webhooks.id, query.webhookId))
      .where(
        and(
          gt(events.seq, query.afterSeq),
          sql`${events.createdAt} >= ${query.since}`,
          endpointWants,
        ),
      )
      .orderBy(asc(events.seq))
      .limit(query.limit),
  );
  return { ids: rows.map((row) => row.id), lastSeq: rows.at(-1)?.seq };
}
