import { integer } from "drizzle-orm/sqlite-core";

/**
 * The columns a record of the catalogue (an animal, a category, a shelter)
 * keeps of its life, after its own: its version, which is its entity tag,
 * when it was made, and when it was deleted. A deleted record stays as a
 * tombstone, so its event can show it as it was and its id is never given
 * to another.
 */
export const lifeColumns = {
  // Grows by one with every change of the record, in the change's own batch.
  version: integer("version").notNull().default(1),
  createdAt: integer("created_at", { mode: "timestamp_ms" })
    .notNull()
    .$defaultFn(() => new Date()),
  deletedAt: integer("deleted_at", { mode: "timestamp_ms" }),
};
