import { fillPlaceholders } from "drizzle-orm";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import { oncePer } from "../utils/once-per.ts";
import * as schema from "./schema.ts";

export type Database = DrizzleD1Database<typeof schema> & { $client: D1Database };

/** One Drizzle instance per D1 binding object, so requests do not rebuild it. */
export const database = oncePer((d1: D1Database): Database => drizzle(d1, { schema }));

/**
 * A resource's query shapes, prepared once per database, so a request only
 * binds values.
 */
export function preparedQueries<T>(prepare: (db: Database) => T): (db: Database) => T {
  return oncePer(prepare);
}

/** A statement that binds its values by name, for a batch of the hot path. */
export type BoundStatement = (values: Record<string, unknown>) => D1PreparedStatement;

/**
 * A query's text, written by Drizzle once, bound per request by its
 * placeholders' names. For batches on the hot path: a batch takes only query
 * builders, whose SQL Drizzle writes anew on every call, which cost a create
 * more CPU than its limiter call in a profile. The caller maps the raw rows.
 */
export function boundStatement(
  db: Database,
  query: { toSQL(): { sql: string; params: unknown[] } },
): BoundStatement {
  const { sql, params } = query.toSQL();
  return (values) => db.$client.prepare(sql).bind(...fillPlaceholders(params, values));
}

/** The first row of a bound statement's result, in the shape the caller knows its statement returns. */
export function firstRow<Row>(result: D1Result | undefined): Row | undefined {
  return result?.results[0] as Row | undefined;
}
