import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

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
