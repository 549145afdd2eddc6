import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import { oncePer } from "../utils/once-per.ts";
import * as schema from "./schema.ts";

export type Database = DrizzleD1Database<typeof schema>;

/** One Drizzle instance per D1 binding object, so requests do not rebuild it. */
export const database = oncePer((d1: D1Database): Database => drizzle(d1, { schema }));

/**
 * A resource's query shapes, prepared once per database, so a request only
 * binds values.
 */
export function preparedQueries<T>(prepare: (db: Database) => T): (db: Database) => T {
  return oncePer(prepare);
}
