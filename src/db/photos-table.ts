import { eq, type SQL, sql } from "drizzle-orm";
import {
  index,
  integer,
  type SQLiteColumn,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { pets } from "./schema.ts";

/*
 * The photos' table, in a file of its own beside `schema.ts`: drizzle-kit
 * generates migrations from both (`drizzle.config.ts`). With it, the two
 * reads of it that an animal's own shape makes, so the animals' queries
 * need nothing of the photos' room above them.
 */

export const PHOTO_TYPES = ["image/jpeg", "image/png", "image/webp"] as const;

/** The index that gives an animal's photos in upload order. */
const PHOTOS_IN_ORDER = "photos_pet_state_seq_idx";

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

/** The photos an animal has: confirmed ones (a pending one is nobody's yet, a deleting one nobody's any more). */
export const confirmed = eq(photos.state, "confirmed");

/**
 * The addresses of the photos of the animal whose id is in `petId`, oldest
 * first, as a JSON array (`[]` when it has none). The aggregate takes the
 * rows in the order of the index it reads, pinned to the one on (pet_id,
 * state, seq): oldest first without the sort step an ordered aggregate
 * would cost every animal a listing shows.
 */
export function photoUrlsOf(petId: SQLiteColumn): SQL<string> {
  return sql<string>`(SELECT json_group_array(${photos.url}) FROM ${photos} INDEXED BY ${sql.identifier(PHOTOS_IN_ORDER)} WHERE ${photos.petId} = ${petId} AND ${confirmed})`;
}
