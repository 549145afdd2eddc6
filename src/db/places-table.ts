import { integer, real, sqliteTable } from "drizzle-orm/sqlite-core";

/**
 * The R*Tree of shelters' places (`migrations/0009_shelter_places_exact.sql`),
 * declared for the query builder only: drizzle-kit cannot express a virtual
 * table, so it stays out of the files migrations are generated from. Each
 * live shelter is a box of one point under its id; the module keeps 32-bit
 * floats, rounded outward, so the box only selects candidates. Its auxiliary
 * columns hold the shelter's own coordinates exactly, as the shelters' table
 * does, so distances are computed from the index alone. Each shelter's
 * change writes it.
 */
export const shelterPlaces = sqliteTable("shelter_places", {
  id: integer("id").notNull(),
  minLat: real("min_lat").notNull(),
  maxLat: real("max_lat").notNull(),
  minLon: real("min_lon").notNull(),
  maxLon: real("max_lon").notNull(),
  latitude: real("latitude").notNull(),
  longitude: real("longitude").notNull(),
});
