import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { lifeColumns } from "./record-columns.ts";
import { accounts } from "./schema.ts";

/*
 * The shelters' table, in a file of its own beside `schema.ts`: drizzle-kit
 * generates migrations from both (`drizzle.config.ts`).
 */

/**
 * Where animals live: an account's shelters, with the contact adopters reach
 * and the place, in decimal degrees, that distances will be measured from.
 * A deleted shelter stays as a tombstone, so its event can show it as it was
 * and its id is never given to another.
 */
export const shelters = sqliteTable(
  "shelters",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    email: text("email").notNull(),
    phone: text("phone"),
    website: text("website"),
    street: text("street"),
    city: text("city").notNull(),
    region: text("region"),
    postalCode: text("postal_code"),
    country: text("country").notNull(),
    latitude: real("latitude").notNull(),
    longitude: real("longitude").notNull(),
    ...lifeColumns,
  },
  (table) => {
    const live = sql`${table.deletedAt} IS NULL`;
    return [
      index("shelters_live_id_idx").on(table.id).where(live),
      index("shelters_country_id_idx").on(table.country, table.id).where(live),
      // Serves the cap on an account's shelters, counted inside the batch that adds one.
      index("shelters_account_idx").on(table.accountId).where(live),
    ];
  },
);
