import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import * as schema from "./schema.ts";

export type Database = DrizzleD1Database<typeof schema>;

/** `build(source)` made once per source object (held weakly), then handed out again. */
function oncePer<S extends object, T>(build: (source: S) => T): (source: S) => T {
  const made = new WeakMap<S, T>();
  return (source) => {
    let value = made.get(source);
    if (value === undefined) {
      value = build(source);
      made.set(source, value);
    }
    return value;
  };
}

/** One Drizzle instance per D1 binding object, so requests do not rebuild it. */
export const database = oncePer((d1: D1Database): Database => drizzle(d1, { schema }));

/**
 * A resource's query shapes, prepared once per database, so a request only
 * binds values.
 */
export function preparedQueries<T>(prepare: (db: Database) => T): (db: Database) => T {
  return oncePer(prepare);
}
