import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { pets } from "./schema.ts";

/*
 * The photos' table, in a file of its own beside `schema.ts`: drizzle-kit
 * generates migrations from both (`drizzle.config.ts`).
 */

export const PHOTO_TYPES = ["image/jpeg", "image/png", "image/webp"] as const;

/** The index that gives an animal's photos in upload order. */
export const PHOTOS_IN_ORDER = "photos_pet_state_seq_idx";

/**
 * Animals' photos: the record of each; the bytes are an object in R2 named
 * by the photo's id. A photo is `pending` from before its object is written
 * until the batch that confirms it; `confirmed` photos are the animal's
 * (the only ones any reply shows); `deleting` marks an object to delete,
 * after which the row goes too. The scheduled job deletes what a failure
 * left: the objects of rows marked `deleting`, and of rows still `pending`
 * a day on.
 */
export const photos = sqliteTable(
  "photos",
  {
    // Upload order, so an animal's photos list oldest first even within one millisecond.
    seq: integer("seq").primaryKey(),
    // Random and unguessable: the public address names it, and listing is the only way to learn it.
    id: text("id").notNull(),
    petId: integer("pet_id")
      .notNull()
      .references(() => pets.id),
    contentType: text("content_type", { enum: PHOTO_TYPES }).notNull(),
    size: integer("size").notNull(),
    // Absolute, on the public origin of the environment that took the upload.
    url: text("url").notNull(),
    state: text("state", { enum: ["pending", "confirmed", "deleting"] }).notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [
    uniqueIndex("photos_id_unique").on(table.id),
    // Serves an animal's photos in upload order (in one state), and the count its limit checks.
    index(PHOTOS_IN_ORDER).on(table.petId, table.state, table.seq),
    // Serves the scheduled job: the rows in one state, by age.
    index("photos_state_created_idx").on(table.state, table.createdAt),
  ],
);
