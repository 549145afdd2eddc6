import { sql } from "drizzle-orm";
import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { SCOPES, type Scope } from "../scopes.ts";
import { profileColumns } from "./pet-profile-columns.ts";
import { lifeColumns } from "./record-columns.ts";

export const PET_STATUSES = ["available", "pending", "sold"] as const;

/**
 * The catalogue's animals. A deleted animal stays as a tombstone (`deletedAt`):
 * orders keep naming it, and its id is never given to another. Every listing
 * index holds live animals only, so tombstones cost a listing nothing.
 */
export const pets = sqliteTable(
  "pets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    // No foreign key: a tombstone keeps naming a category that may since have been deleted.
    categoryId: integer("category_id").notNull(),
    status: text("status", { enum: PET_STATUSES }).notNull().default("available"),
    // The account whose key added it; null for rows a migration made, which the operator account owns.
    accountId: integer("account_id").references(() => accounts.id),
    ...lifeColumns,
    ...profileColumns,
  },
  (table) => {
    const live = sql`${table.deletedAt} IS NULL`;
    // Each listing's filter walks its index in id order from the cursor, without a sort step.
    // None for `sex` and the yes/no columns: each would cost every write more than it saves.
    return [
      index("pets_live_id_idx").on(table.id).where(live),
      index("pets_status_id_idx").on(table.status, table.id).where(live),
      index("pets_category_id_idx").on(table.categoryId, table.id).where(live),
      index("pets_category_status_id_idx").on(table.categoryId, table.status, table.id).where(live),
      index("pets_shelter_id_idx").on(table.shelterId, table.id).where(live),
      index("pets_age_id_idx").on(table.age, table.id).where(live),
      index("pets_size_id_idx").on(table.size, table.id).where(live),
    ];
  },
);

/**
 * The kinds animals are sorted into. A migration seeds the first seven,
 * which the operator account owns; the rest belong to the account whose key
 * made them. A deleted category stays as a tombstone, so its event can show
 * it as it was and its id is never given to another. Names are unique among
 * live categories ignoring case and accents (see
 * `src/categories/category-names.ts`), a rule no index can hold.
 */
export const categories = sqliteTable(
  "categories",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    // Null for rows a migration made, which the operator account owns.
    accountId: integer("account_id").references(() => accounts.id),
    ...lifeColumns,
  },
  // Serves the listing in id order from the cursor, past tombstones without reading them.
  (table) => [index("categories_live_id_idx").on(table.id).where(sql`${table.deletedAt} IS NULL`)],
);

const PLANS = ["free", "pro", "business", "enterprise"] as const;

export const accounts = sqliteTable(
  "accounts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    // Stored lower-cased; the expression index also refuses case variants written by other paths.
    email: text("email").notNull(),
    // Empty for an account an operator made, until its owner sets a password through an invite.
    passwordHash: text("password_hash").notNull(),
    plan: text("plan", { enum: PLANS }).notNull().default("free"),
    // Enterprise accounts carry their own numbers; other plans take the plan's.
    perMinute: integer("per_minute"),
    perDay: integer("per_day"),
    createdAt: integer("created_at", { mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (table) => [uniqueIndex("accounts_email_unique").on(sql`lower(${table.email})`)],
);

/**
 * Every API key, by the SHA-256 of its value: the system of record. KV holds
 * a projection of each row for the hot path, and the key's Durable Object the
 * newest policy; both are rewritten from this row after every change.
 */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    hash: text("hash").primaryKey(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    lastFour: text("last_four").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    // When the key stops working, fixed when it is made (a roll copies it); null: never.
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
    // End of a rolled key's grace period; null until the key is rolled.
    graceEndsAt: integer("grace_ends_at", { mode: "timestamp_ms" }),
    // What the key may do, fixed when it is made: a JSON array of scopes.
    scopes: text("scopes", { mode: "json" })
      .$type<Scope[]>()
      .notNull()
      .default([...SCOPES]),
    // The CIDR ranges it may be used from, fixed when it is made; null: any address.
    allowedRanges: text("allowed_ranges", { mode: "json" }).$type<string[]>(),
    // Limits an operator set on this key alone; null follows the account's plan.
    plan: text("plan", { enum: PLANS }),
    perMinute: integer("per_minute"),
    perDay: integer("per_day"),
    // Grows by one with every change, so a Durable Object keeps the newest policy it is sent.
    version: integer("version").notNull().default(1),
    // The newest version both KV and the Durable Object have taken.
    syncedVersion: integer("synced_version").notNull().default(0),
  },
  (table) => [
    index("api_keys_account_created_idx").on(table.accountId, table.createdAt),
    // Serves the scheduled re-push of keys whose stores lag behind their row.
    index("api_keys_unsynced_idx")
      .on(table.hash)
      .where(sql`${table.syncedVersion} < ${table.version}`),
  ],
);

/** One-time links that let an account's owner set its password; only their hash is stored. */
export const accountInvites = sqliteTable(
  "account_invites",
  {
    tokenHash: text("token_hash").primaryKey(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("account_invites_account_idx").on(table.accountId)],
);

/**
 * One row per Idempotency-Key an API key used, with the operation it was
 * used on and the response that request was sent, so a replay answers
 * exactly as the first time even after the resource has changed. The row is
 * written in the same batch as what the request made, so a retry can never
 * make a second one.
 */
export const idempotencyRecords = sqliteTable(
  "idempotency_records",
  {
    apiKeyHash: text("api_key_hash").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    /** The operationId: one key used on two operations is refused. */
    operation: text("operation").notNull(),
    requestHash: text("request_hash").notNull(),
    // Null only inside the batch that claims the key: it ends with the response stored or the claim removed.
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.apiKeyHash, table.idempotencyKey] }),
    // Serves the scheduled removal of expired rows.
    index("idempotency_records_created_at_idx").on(table.createdAt),
  ],
);

export const ORDER_STATUSES = ["placed", "completed", "cancelled"] as const;

/**
 * Store orders: how an animal is adopted. An order and its animal only ever
 * change together, in one batch whose statements are conditional on the
 * states they move from.
 */
export const orders = sqliteTable(
  "orders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    // Orders belong to the account of the key that placed them; accounts are never deleted.
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    petId: integer("pet_id")
      .notNull()
      .references(() => pets.id),
    status: text("status", { enum: ORDER_STATUSES }).notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [
    // Serve an account's listing in id order, unfiltered and by status, without a sort step.
    index("orders_account_id_idx").on(table.accountId, table.id),
    index("orders_account_status_id_idx").on(table.accountId, table.status, table.id),
    // The database itself refuses a second open order for one animal, whatever a statement does.
    uniqueIndex("orders_one_placed_per_pet_idx")
      .on(table.petId)
      .where(sql`${table.status} = 'placed'`),
  ],
);

/**
 * Signed-in dashboard browsers. The cookie holds a random token and this
 * table only its SHA-256, so no copy of the table signs anyone in or opens a
 * notice; signing out deletes the row, so a replayed cookie names nothing.
 */
export const dashboardSessions = sqliteTable(
  "dashboard_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    /** The D1 bookmark after the session's newest change: its pages read at least that fresh. */
    bookmark: text("bookmark"),
  },
  // Serves the scheduled removal of ended sessions.
  (table) => [index("dashboard_sessions_expires_at_idx").on(table.expiresAt)],
);

/**
 * One-time messages for a session's next page, above all a new key: sealed
 * with a key derived from the session's cookie token (which D1 does not hold),
 * deleted when shown and after a few minutes, and gone with their session.
 */
export const sessionNotices = sqliteTable(
  "session_notices",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sessionHash: text("session_hash")
      .notNull()
      .references(() => dashboardSessions.tokenHash, { onDelete: "cascade" }),
    sealed: text("sealed").notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [
    index("session_notices_session_idx").on(table.sessionHash),
    index("session_notices_expires_at_idx").on(table.expiresAt),
  ],
);

export const EVENT_TYPES = [
  "pet.created",
  "pet.updated",
  "pet.status_changed",
  "pet.deleted",
  "category.created",
  "category.updated",
  "category.deleted",
  "shelter.created",
  "shelter.updated",
  "shelter.deleted",
  "order.placed",
  "order.completed",
  "order.cancelled",
] as const;

/**
 * The outbox and the event feed in one table. Each change to an animal or an
 * order writes its events in its own D1 batch (see `src/changes/outbox-statements.ts`):
 * no change commits without its events, and no event without its change.
 * `data` is the Pet or Order as the API returns it after the change.
 */
export const events = sqliteTable(
  "events",
  {
    // The feed's order: assigned inside the change's transaction, and D1 has one writer,
    // so it is commit order. AUTOINCREMENT never reuses a number, even after retention.
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull(),
    type: text("type", { enum: EVENT_TYPES }).notNull(),
    // Who may see it: the order's account for order.*, everyone (null) for the catalogue's kinds.
    accountId: integer("account_id").references(() => accounts.id),
    data: text("data").notNull(),
    previousStatus: text("previous_status", { enum: PET_STATUSES }),
    // What a change altered, as a JSON array, for the kinds that say so; null for the others.
    changes: text("changes"),
    // The database's clock at the change, so it never runs against the feed's order.
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    // Outbox state: null until a dispatcher handed the event's deliveries to the queue.
    dispatchedAt: integer("dispatched_at", { mode: "timestamp_ms" }),
    // A dispatcher's claim; once it expires (a dispatcher that died), another may claim again.
    claimToken: text("claim_token"),
    claimExpiresAt: integer("claim_expires_at", { mode: "timestamp_ms" }),
  },
  (table) => [
    uniqueIndex("events_id_unique").on(table.id),
    // Serve the dispatchers: events still to send, in feed order, and those one of them claimed.
    index("events_undispatched_idx").on(table.seq).where(sql`${table.dispatchedAt} IS NULL`),
    index("events_claim_idx").on(table.claimToken).where(sql`${table.dispatchedAt} IS NULL`),
    // Serves the scheduled removal after the retention period.
    index("events_created_at_idx").on(table.createdAt),
  ],
);

export const WEBHOOK_STATUSES = ["enabled", "disabled"] as const;

/**
 * Where an account wants its events POSTed. The signing secret is kept to
 * sign deliveries and shown only in the reply that made the endpoint. Its
 * deliveries and their attempts live in the endpoint's Durable Object.
 */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    // JSON array of event kinds and families (`pet.*`), as the client sent them.
    types: text("types").notNull(),
    secret: text("secret").notNull(),
    // JSON array of the secrets rotated away ({ secret, until }), newest first: deliveries
    // are signed with these too until each one's `until`, so receivers switch without a gap.
    previousSecrets: text("previous_secrets").notNull().default("[]"),
    // Paused by its owner, or disabled by the service with a reason (410 Gone, failing for days).
    status: text("status", { enum: WEBHOOK_STATUSES }).notNull().default("enabled"),
    disabledReason: text("disabled_reason"),
    // The last event committed before the endpoint existed: it receives only later ones.
    afterSeq: integer("after_seq").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("webhooks_account_idx").on(table.accountId, table.id)],
);
