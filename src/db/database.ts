import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import * as schema from "./schema.ts";

export type Database = DrizzleD1Database<typeof schema>;

const instances = new WeakMap<D1Database, Database>();

/** One Drizzle instance per D1 binding object, so requests do not rebuild it. */
export function database(d1: D1Database): Database {
  let db = instances.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    instances.set(d1, db);
  }
  return db;
}
