import { fillPlaceholders, type SQL, sql } from "drizzle-orm";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import type { PreparedQueryConfig, SQLitePreparedQuery } from "drizzle-orm/sqlite-core";
import { oncePer } from "../utils/once-per.ts";
import * as schema from "./schema.ts";

/**
 * The one place that leans on Drizzle beyond its documented query builder:
 * a prepared statement's SQL and parameters (`getQuery`), binding its
 * placeholders by name (`fillPlaceholders`) and mapping a D1 result into its
 * rows (`mapResult`), or leaving a shape to map them (`runValues`).
 * test/worker/db/database.test.ts pins what these do.
 */

/** Drizzle over one D1 binding: what statements are built and prepared with, once per isolate. */
export type Drizzle = DrizzleD1Database<typeof schema>;

/** Where statements run: the binding, or a session over it (reads at a bookmark, for one request). */
type D1Target = D1Database | D1DatabaseSession;

/** What sessions start from: the binding, or a request's record of the sessions it opens. */
export type SessionSource = Pick<D1Database, "withSession">;

/**
 * What queries take: the isolate's Drizzle instance, which holds the
 * prepared statements, the D1 target they run on, and the binding that
 * target belongs to (which sessions start from). A handle over a session
 * shares the binding's Drizzle instance, so it prepares nothing again.
 */
export interface Database {
  readonly drizzle: Drizzle;
  readonly d1: D1Target;
  readonly binding: SessionSource;
  /**
   * Where the changes run through a request's session record what they
   * leave for after its reply; absent elsewhere (the binding), whose waiting
   * events the scheduled sweep sends.
   */
  readonly changes?: ChangeRecord;
}

/** What a request's changes leave for after its reply. */
export interface ChangeRecord {
  /** A change saw events waiting for an endpoint: they leave once the request has answered. */
  eventsWaiting: boolean;
  /** A keyed change was answered by an earlier request's reply, stored with its key. */
  replayed: boolean;
  /** Photos a change marked `deleting`: their objects and rows go once the handler is done, before the reply. */
  photosMarked?: string[];
}

/**
 * Records photos a change marked `deleting` where `db` keeps its changes;
 * elsewhere (the binding) the scheduled job deletes them.
 */
export function markedForRemoval(db: Database, photoIds: readonly string[]): void {
  if (!db.changes || photoIds.length === 0) return;
  db.changes.photosMarked = [...(db.changes.photosMarked ?? []), ...photoIds];
}

/** One handle per D1 binding object, so requests do not rebuild Drizzle or prepare again. */
export const database = oncePer(
  (d1: D1Database): Database => ({
    drizzle: drizzle(d1, { schema }),
    d1,
    binding: d1,
  }),
);

/** The same database, run through `session`: the statements prepared for `db` serve it. */
export function onSession(db: Database, session: D1DatabaseSession): Database {
  return { drizzle: db.drizzle, d1: session, binding: db.binding, changes: db.changes };
}

/**
 * The database read at its primary, in a session of its own: for a read
 * that decides something (a key missing from KV, a dashboard session that
 * may just have ended, the record that won an idempotency claim), which a
 * replica that lags behind must not answer.
 */
export function atPrimary(db: Database): Database {
  return onSession(db, db.binding.withSession("first-primary"));
}

/**
 * A resource's statements, prepared once per Drizzle instance, so a request
 * only binds values, whichever target it runs them on.
 */
export function preparedQueries<T>(prepare: (db: Drizzle) => T): (db: Database) => T {
  const prepared = oncePer(prepare);
  return (db) => prepared(db.drizzle);
}

/** A query Drizzle prepared (`.prepare()`), whose result it maps to `Result`. */
export type Statement<Result> = SQLitePreparedQuery<PreparedQueryConfig & { execute: Result }>;

/** What a statement's run gives, mapped by Drizzle. */
export type ResultOf<S> = S extends Statement<infer Result> ? Result : never;

function bound(target: D1Target, statement: Statement<unknown>, values: Record<string, unknown>) {
  const { sql: text, params } = statement.getQuery();
  return target.prepare(text).bind(...fillPlaceholders(params, values));
}

/**
 * Runs `statements` as one D1 batch (one transaction), in the order given,
 * each bound by its placeholders' names from `values`, and returns each
 * result, mapped by Drizzle, at its statement's position. Drizzle's own
 * batch writes every statement's SQL anew on each call, which cost a create
 * more CPU than its limiter call in a profile; these were written once, when
 * prepared. D1 answers rows keyed by column name, so a statement's columns
 * need distinct names (alias those of a join that share one).
 */
export async function runAll(
  db: Database,
  statements: readonly Statement<unknown>[],
  values: Record<string, unknown>,
): Promise<unknown[]> {
  const results = await db.d1.batch(statements.map((statement) => bound(db.d1, statement, values)));
  return statements.map((statement, i) => statement.mapResult(results[i], true));
}

/** Runs one statement alone, bound and mapped as `runAll` does each of its own. */
export async function runOne<Result>(
  db: Database,
  statement: Statement<Result>,
  values: Record<string, unknown>,
): Promise<Result> {
  return statement.mapResult(await bound(db.d1, statement, values).all(), true) as Result;
}

/**
 * Runs one statement alone, bound as `runOne` does, and gives its rows as
 * D1 answers them raw: each the values of its columns, in their order, as
 * SQLite gave them. For a shape's rows (`fromValues`), which neither D1's
 * objects keyed by column nor Drizzle's mapping of them then cost.
 */
export function runValues(
  db: Database,
  statement: Statement<unknown>,
  values: Record<string, unknown>,
): Promise<unknown[][]> {
  return bound(db.d1, statement, values).raw();
}

/** A list bound as one JSON parameter, for `json_each` to read; null for no list, which a finder reads as "any". */
export const boundList = (list: readonly unknown[] | undefined): string | null =>
  list === undefined ? null : JSON.stringify(list);

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
