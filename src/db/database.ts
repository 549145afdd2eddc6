import { fillPlaceholders, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import type {
  PreparedQueryConfig,
  SQLitePreparedQuery,
  SQLiteTable,
} from "drizzle-orm/sqlite-core";
import { oncePer } from "../utils/once-per.ts";
import * as schema from "./schema.ts";

export type Database = DrizzleD1Database<typeof schema> & { $client: D1Database };

/** One Drizzle instance per D1 binding object, so requests do not rebuild it. */
export const database = oncePer((d1: D1Database): Database => drizzle(d1, { schema }));

/**
 * A resource's statements, prepared once per database, so a request only
 * binds values.
 */
export function preparedQueries<T>(prepare: (db: Database) => T): (db: Database) => T {
  return oncePer(prepare);
}

/** A query Drizzle prepared (`.prepare()`), whose result it maps to `Result`. */
export type Statement<Result> = SQLitePreparedQuery<PreparedQueryConfig & { execute: Result }>;

/** Named statements, run in the order they are listed. */
export type Statements = Record<string, Statement<unknown>>;

export type BatchResults<S extends Statements> = {
  [Name in keyof S]: S[Name] extends Statement<infer Result> ? Result : never;
};

/**
 * Runs `statements` as one D1 batch (one transaction), each bound by its
 * placeholders' names from `values`, and returns each result, mapped by
 * Drizzle, under its statement's name. Drizzle's own batch writes every
 * statement's SQL anew on each call, which cost a create more CPU than its
 * limiter call in a profile; these were written once, when prepared.
 */
export async function runBatch<S extends Statements>(
  db: Database,
  statements: S,
  values: Record<string, unknown>,
): Promise<BatchResults<S>> {
  const named = Object.entries(statements);
  const results = await db.$client.batch(
    named.map(([, statement]) => {
      const { sql: text, params } = statement.getQuery();
      return db.$client.prepare(text).bind(...fillPlaceholders(params, values));
    }),
  );
  return Object.fromEntries(
    named.map(([name, statement], i) => [name, statement.mapResult(results[i], true)]),
  ) as BatchResults<S>;
}

/**
 * A placeholder bound as given. Drizzle encodes a placeholder that sets a
 * timestamp column as a Date; statements bind milliseconds, as such columns
 * store them and as conditions compare them.
 */
export function millis(name: string): SQL<number> {
  return sql<number>`${sql.placeholder(name)}`;
}

/** The database's clock in milliseconds, for times that must follow commit order. */
export const databaseNow = sql<number>`CAST(round(unixepoch('subsec') * 1000) AS INTEGER)`;

/** An instant stored in milliseconds, as the API writes it: RFC 3339 UTC with milliseconds. */
export function isoInstant(column: SQLWrapper): SQL<string> {
  return sql<string>`strftime('%Y-%m-%dT%H:%M:%S', ${column} / 1000, 'unixepoch') || printf('.%03dZ', ${column} % 1000)`;
}

/**
 * The JSON object SQL renders from a resource's fields: the same fields a
 * select of the resource reads, so SQL and the API render it alike.
 */
export function jsonObject(fields: Record<string, SQLWrapper>): SQL<string> {
  const pairs = Object.entries(fields).map(([key, value]) => sql`${key}, ${value}`);
  return sql<string>`json_object(${sql.join(pairs, sql`, `)})`;
}

/** The row an earlier statement of the batch inserted into `table`, as `jsonObject(fields)`. */
export function insertedJson(
  table: SQLiteTable,
  id: SQLWrapper,
  fields: Record<string, SQLWrapper>,
): SQL<string> {
  return sql<string>`(SELECT ${jsonObject(fields)} FROM ${table} WHERE ${id} = last_insert_rowid())`;
}
