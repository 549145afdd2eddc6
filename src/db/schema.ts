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

export const accounts = sqliteTable(
  "accounts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    // Stored lower-cased; the expression index also refuses case variants written by other paths.
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    plan: text("plan", { enum: ["free", "pro", "business", "enterprise"] })
      .notNull()
      .default("free"),
    createdAt: integer("created_at", { mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (table) => [uniqueIndex("accounts_email_unique").on(sql`lower(${table.email})`)],
);

/** The account's list of keys, for the dashboard; the KV record (by the same hash) is what authenticates. */
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
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
  },
  (table) => [index("api_keys_account_created_idx").on(table.accountId, table.createdAt)],
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
