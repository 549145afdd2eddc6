import { and, eq, sql } from "drizzle-orm";
import { type Owner, ownersAccount, ownerValues } from "../accounts/owner.ts";
import { change } from "../changes/change.ts";
import type { Claim, Outcome } from "../changes/outcomes.ts";
import { type Database, type Drizzle, millis, preparedQueries, runOne } from "../db/database.ts";
import { insertWhere } from "../db/insert-where.ts";
import { accounts, events, webhooks } from "../db/schema.ts";
import { shape } from "../db/shape.ts";
import type { EventTypeSelector } from "../events/events.schemas.ts";
import { firstRow, guardStorage } from "../storage/storage-guard.ts";
import { MAX_SIGNING_SECRETS, SECRET_OVERLAP_MS, stillSigning } from "./webhook-secrets.ts";
import { ownedEndpoint, webhookShape } from "./webhooks.queries.ts";
import { type CreatedWebhook, MAX_WEBHOOKS, type Webhook } from "./webhooks.schemas.ts";

/*
 * The statements that change endpoints. Only endpoint-changes.ts calls them:
 * it is the one writer of endpoint state, for the API, the dashboard and
 * each endpoint's delivering object alike.
 */

/** An endpoint as the reply that made it or rotated its secret shows it, once: with its secret. */
const createdWebhookShape = shape(webhooks, {
  ...webhookShape.definition,
  secret: webhooks.secret,
});

/** The endpoints' single writes, prepared once per database. */
const endpointWrites = preparedQueries((db: Drizzle) => {
  const status = sql.placeholder("status");
  return {
    rotationTarget: db
      .select({
        ...webhookShape.columns,
        secret: webhooks.secret,
        previousSecrets: webhooks.previousSecrets,
      })
      .from(webhooks)
      .where(ownedEndpoint)
      .prepare(),
    delete: db.delete(webhooks).where(ownedEndpoint).returning({ id: webhooks.id }).prepare(),
    // A null value leaves its column; a status set also clears the reason the service gave.
    update: db
      .update(webhooks)
      .set({
        url: sql`coalesce(${sql.placeholder("url")}, ${webhooks.url})`,
        types: sql`coalesce(${sql.placeholder("types")}, ${webhooks.types})`,
        status: sql`coalesce(${status}, ${webhooks.status})`,
        disabledReason: sql`CASE WHEN ${status} IS NULL THEN ${webhooks.disabledReason} END`,
      })
      .where(ownedEndpoint)
      .returning(webhookShape.columns)
      .prepare(),
    disable: db
      .update(webhooks)
      .set({ status: "disabled", disabledReason: sql`${sql.placeholder("reason")}` })
      .where(and(eq(webhooks.id, sql.placeholder("id")), eq(webhooks.status, "enabled")))
      .prepare(),
  };
});

interface NewEndpoint {
  owner: Owner;
  url: string;
  types: EventTypeSelector[];
  secret: string;
  now: number;
}

type InsertOutcome = { kind: "created"; webhook: Webhook } | { kind: "limit_reached" };

/**
 * Adds the endpoint only while the caller's account has fewer than the
 * cap. Count and insert are one statement, so concurrent creates serialise
 * in the database and the cap holds exactly. The endpoint receives the
 * events committed after it: those past the newest sequence number now.
 * The reply, secret included, is stored with a key: a replay shows the
 * same secret.
 */
const registration = change()
  .step("inserted", (db) =>
    insertWhere(db, webhooks, {
      row: {
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
      },
      from: accounts,
      where: and(
        eq(accounts.id, ownersAccount),
        sql`(SELECT count(*) FROM ${webhooks} WHERE ${webhooks.accountId} = ${accounts.id}) < ${MAX_WEBHOOKS}`,
      ),
    })
      .returning(webhookShape.columns)
      .prepare(),
  )
  .read("owner", (db) =>
    db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, ownersAccount)).prepare(),
  )
  .reply(201, createdWebhookShape, eq(webhooks.id, sql`last_insert_rowid()`));

/** The cap held: either the owner has no account (a defect here), or the account is full. */
function refused(owner: unknown[]): { kind: "limit_reached" } {
  // Every authenticated key and every session has an account row; none here means the data is broken.
  if (owner.length === 0) {
    throw new Error("no account owns the endpoint, so none could be added");
  }
  return { kind: "limit_reached" };
}

const registrationValues = ({ owner, ...endpoint }: NewEndpoint) => ({
  ...ownerValues(owner),
  ...endpoint,
  types: JSON.stringify(endpoint.types),
});

/** Adds the endpoint under the account's cap. */
export async function insertWebhookUnderCap(
  db: Database,
  endpoint: NewEndpoint,
): Promise<InsertOutcome> {
  const outcome = await registration.answer(db, {
    values: registrationValues(endpoint),
    made: ({ inserted: [row] }) => row && webhookShape.render(row),
    refused: ({ owner }) => refused(owner),
  });
  return outcome.kind === "made" ? { kind: "created", webhook: outcome.body } : outcome;
}

/**
 * Adds the endpoint under the cap and stores the reply, secret included,
 * with the Idempotency-Key in one batch: one endpoint per key, and a replay
 * answers with the same secret for as long as the record is kept.
 */
export function insertWebhookOnce(db: Database, endpoint: NewEndpoint, claim: Claim) {
  return registration.answer(db, {
    values: registrationValues(endpoint),
    claim,
    refused: ({ owner }) => refused(owner),
  });
}

/** Deletes the endpoint if it is the owner's account's. */
export async function deleteWebhook(db: Database, owner: Owner, id: number): Promise<boolean> {
  const rows = await guardStorage("D1", () =>
    runOne(db, endpointWrites(db).delete, { ...ownerValues(owner), id }),
  );
  return rows.length > 0;
}

/** What updateWebhook changes; `enabled` also clears the reason the service gave. */
export interface EndpointChange {
  url?: string | undefined;
  types?: EventTypeSelector[] | undefined;
  enabled?: boolean | undefined;
}

/** Applies the change to the owner's account's endpoint; undefined when it has none by that id. */
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
  const row = await firstRow(db, endpointWrites(db).update, values);
  return row && webhookShape.render(row);
}

/** The service disables an endpoint (410 Gone, or failing for days), unless it is disabled already. */
export async function disableWebhook(db: Database, id: number, reason: string): Promise<void> {
  await guardStorage("D1", () => runOne(db, endpointWrites(db).disable, { id, reason }));
}

/** The endpoint with the columns rotation reads, if it is the owner's account's. */
async function rotationTarget(db: Database, owner: Owner, id: number) {
  const row = await firstRow(db, endpointWrites(db).rotationTarget, { ...ownerValues(owner), id });
  return row;
}

/**
 * Gives the endpoint a new secret; the one it replaces still signs
 * deliveries for 24 hours. The update is conditional on the secret read,
 * so two rotations at once cannot drop a secret: the later one finds it
 * changed and reads again. With a claim, the reply (the new secret
 * included) is stored with the Idempotency-Key in the same batch.
 * Undefined when the owner's account has no such endpoint.
 */
export async function rotateSecret(
  db: Database,
  rotation: { owner: Owner; id: number; secret: string; now: number },
  claim: Claim | undefined,
): Promise<Outcome<CreatedWebhook> | undefined> {
  const { owner, ...values } = rotation;
  for (;;) {
    const current = await rotationTarget(db, owner, rotation.id);
    if (!current) return undefined;
    const { secret: oldSecret, previousSecrets, ...webhook } = current;
    const previous = [
      { secret: oldSecret, until: rotation.now + SECRET_OVERLAP_MS },
      ...stillSigning(previousSecrets, rotation.now),
    ].slice(0, MAX_SIGNING_SECRETS - 1);
    const outcome = await secretRotation.answer(db, {
      values: {
        ...ownerValues(owner),
        ...values,
        oldSecret,
        previousSecrets: JSON.stringify(previous),
      },
      claim,
      made: ({ rotated }) =>
        rotated.length > 0
          ? { ...webhookShape.render(webhook), secret: rotation.secret }
          : undefined,
      // Another rotation came first: read again.
      refused: () => ({ kind: "stale" as const }),
    });
    if (outcome.kind !== "stale") return outcome;
  }
}

/**
 * The rotation itself, conditional on the secret read, and its reply: the
 * endpoint as it is after the change, with its new secret.
 */
const secretRotation = change()
  .step("rotated", (db) =>
    db
      .update(webhooks)
      .set({
        secret: sql`${sql.placeholder("secret")}`,
        previousSecrets: sql`${sql.placeholder("previousSecrets")}`,
      })
      .where(
        and(
          eq(webhooks.id, sql.placeholder("id")),
          eq(webhooks.accountId, ownersAccount),
          eq(webhooks.secret, sql.placeholder("oldSecret")),
        ),
      )
      .returning({ id: webhooks.id })
      .prepare(),
  )
  .reply(200, createdWebhookShape, eq(webhooks.id, sql.placeholder("id")));
