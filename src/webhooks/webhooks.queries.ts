import { and, asc, eq, sql } from "drizzle-orm";
import { type Owner, ownersAccount, ownerValues } from "../accounts/owner.ts";
import { type Database, type Drizzle, preparedQueries, runOne } from "../db/database.ts";
import { webhooks } from "../db/schema.ts";
import { instant, jsonText, optional, shape } from "../db/shape.ts";
import type { EventTypeSelector } from "../events/events.schemas.ts";
import { firstRow, guardStorage } from "../storage/storage-guard.ts";
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
  const row = await firstRow(db, endpointQueries(db).find, { ...ownerValues(owner), id });
  return row && webhookShape.render(row);
}
