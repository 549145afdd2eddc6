import { sql } from "drizzle-orm";
import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

export const pets = sqliteTable(
  "pets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    categoryId: integer("category_id").notNull(),
    status: text("status", { enum: ["available", "pending", "sold"] })
      .notNull()
      .default("available"),
    createdAt: integer("created_at", { mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
  },
  // Serves the status-filtered listing in id order without a sort step.
  (table) => [index("pets_status_id_idx").on(table.status, table.id)],
);

const PLANS = ["free", "pro", "business", "enterprise"] as const;

/**
 * A key's first version. Versions grow by one with every change; this starts
 * them above the millisecond timestamps that served as versions before D1
 * held keys, so Durable Objects that hold one of those adopt the first change.
 */
export const FIRST_KEY_VERSION = 1_000_000_000_000_000;

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
    // End of a rolled key's grace period.
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
    // Limits an operator set on this key alone; null follows the account's plan.
    plan: text("plan", { enum: PLANS }),
    perMinute: integer("per_minute"),
    perDay: integer("per_day"),
    version: integer("version").notNull().default(FIRST_KEY_VERSION),
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
 * One row per Idempotency-Key an API key used to create an animal, written in
 * the same batch as the animal, so a retry can never make a second one.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    apiKeyHash: text("api_key_hash").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    requestHash: text("request_hash").notNull(),
    petId: integer("pet_id").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.apiKeyHash, table.idempotencyKey] }),
    // Serves the hourly removal of expired rows.
    index("idempotency_keys_created_at_idx").on(table.createdAt),
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
