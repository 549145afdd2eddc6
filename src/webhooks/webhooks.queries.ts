import { and, asc, eq, gt, gte, sql } from "drizzle-orm";
import { type Database, type Drizzle, millis, preparedQueries, runOne } from "../db/database.ts";
import { events, webhooks } from "../db/schema.ts";
import { instant, jsonText, optional, shape } from "../db/shape.ts";
import type { EventTypeSelector } from "../events/events.schemas.ts";
import { accountOfKey } from "../keys/keys.queries.ts";
import { endpointWants } from "../outbox/outbox.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import type { Webhook } from "./webhooks.schemas.ts";

/** An endpoint as the API returns it: never its secrets. */
export const webhookShape = shape(webhooks, {
  id: webhooks.id,
  url: webhooks.url,
  types: jsonText<EventTypeSelector[]>(webhooks.types),
  status: webhooks.status,
  disabledReason: optional(webhooks.disabledReason),
  createdAt: instant(webhooks.createdAt),
});

/**
 * Who asks about an endpoint: an API key (by its hash), for its account's
 * endpoints, or an account itself (the dashboard).
 */
export type Owner = { kind: "key"; apiKeyHash: string } | { kind: "account"; accountId: number };

/** The owner as the statements bind it: one of the two set, the other null. */
export const ownerValues = (owner: Owner) =>
  owner.kind === "account"
    ? { accountId: owner.accountId, apiKeyHash: null }
    : { accountId: null, apiKeyHash: owner.apiKeyHash };

/** The owner's account, from whichever of the two `ownerValues` bound. */
export const ownersAccount = sql<number>`coalesce(${sql.placeholder("accountId")}, ${accountOfKey(sql.placeholder("apiKeyHash"))})`;

/** The endpoint `id`, if it is the owner's account's. */
export const ownedEndpoint = and(
  eq(webhooks.id, sql.placeholder("id")),
  eq(webhooks.accountId, ownersAccount),
);

/** The endpoints' reads, prepared once per database. */
const endpointQueries = preparedQueries((db: Drizzle) => ({
  list: db
    .select(webhookShape.columns)
    .from(webhooks)
    .where(eq(webhooks.accountId, ownersAccount))
    .orderBy(asc(webhooks.id))
    .prepare(),
  find: db.select(webhookShape.columns).from(webhooks).where(ownedEndpoint).prepare(),
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
}));

/** The owner's account's endpoints, oldest first. */
export async function listWebhooks(db: Database, owner: Owner): Promise<Webhook[]> {
  const rows = await guardStorage("D1", () =>
    runOne(db, endpointQueries(db).list, ownerValues(owner)),
  );
  return rows.map(webhookShape.render);
}

/** The endpoint, if it is the owner's account's. */
export async function findWebhook(
  db: Database,
  owner: Owner,
  id: number,
): Promise<Webhook | undefined> {
  const [row] = await guardStorage("D1", () =>
    runOne(db, endpointQueries(db).find, { ...ownerValues(owner), id }),
  );
  return row && webhookShape.render(row);
}

/**
 * The ids of a page of events since `since` that the endpoint wants, in
 * commit order after `afterSeq`, with the last one's position.
 */
export async function wantedEventsSince(
  db: Database,
  query: { webhookId: number; since: number; afterSeq: number; limit: number },
): Promise<{ ids: string[]; lastSeq: number | undefined }> {
  const rows = await guardStorage("D1", () => runOne(db, endpointQueries(db).wantedSince, query));
  return { ids: rows.map((row) => row.id), lastSeq: rows.at(-1)?.seq };
}
