import { Column, type GetColumnData, is, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";

/**
 * A shape is a resource as the API returns it (Pet, Order, Webhook, Event),
 * defined once by its fields. From that one definition come the columns a
 * read selects, the TypeScript that renders a row it read into the API's
 * object, and the SQL that renders the same object with json_object (an
 * event's `data`, a stored reply). test/worker/db/shape.test.ts holds the
 * two renderings together.
 */

/** What a read selects for a field: a column, or an SQL expression with an alias (a computed field). */
type Selectable = SQLiteColumn | SQL.Aliased;

/** The value a read of `S` gives, as Drizzle maps it. */
type ReadOf<S> = S extends SQLiteColumn
  ? GetColumnData<S>
  : S extends SQL.Aliased<infer T>
    ? T
    : never;

/** One field: what a read selects, how TypeScript renders what was read, how SQL renders it. */
export interface Field<S extends Selectable, Api, Optional extends boolean = false> {
  readonly select: S;
  render(read: ReadOf<S>): Api;
  /** The same value, for json_object, from the row in scope. */
  readonly json: SQL;
  /** Left out of the object when null, rather than sent as null. */
  readonly optional: Optional;
}

type AnyField = Field<Selectable, unknown, boolean>;

/** A shape's fields by their API name: a bare column is sent as it is stored. */
export type Definition = Record<string, SQLiteColumn | AnyField>;

type SelectOf<E> = E extends Field<infer S, unknown, boolean> ? S : E;
type ApiOf<E> =
  E extends Field<Selectable, infer A, boolean>
    ? A
    : E extends SQLiteColumn
      ? GetColumnData<E>
      : never;
type IsOptional<E> = E extends Field<Selectable, unknown, true> ? true : false;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The columns a read of the shape selects. */
type Columns<D extends Definition> = { [K in keyof D]: SelectOf<D[K]> };
/** A row read with the shape's columns. */
type RowOf<D extends Definition> = { [K in keyof D]: ReadOf<SelectOf<D[K]>> };
/** The object the API returns. */
type ApiObject<D extends Definition> = Simplify<
  { [K in keyof D as IsOptional<D[K]> extends true ? never : K]: ApiOf<D[K]> } & {
    [K in keyof D as IsOptional<D[K]> extends true ? K : never]?: ApiOf<D[K]>;
  }
>;

export interface Shape<D extends Definition> {
  /** The table a row of the shape is read from. */
  readonly table: SQLiteTable;
  readonly definition: D;
  /** What a read selects, or a write returns, to render the shape. */
  readonly columns: Columns<D>;
  /** The row of `table` in scope, rendered by SQL as the API's JSON object. */
  readonly json: SQL<string>;
  /** A row read with `columns`, as the API returns it. */
  render(row: RowOf<D>): ApiObject<D>;
  /**
   * The same object from the row as D1 answers it raw: the values SQLite
   * gave, in the order of `columns`, decoded as Drizzle decodes its columns
   * (an aliased field's SQL is read as SQLite gives it). A listing reads its
   * rows this way: Drizzle's mapping, and D1's own objects keyed by column,
   * cost more than the query's other work on the Worker's side.
   */
  fromValues(values: readonly unknown[]): ApiObject<D>;
}

/** What SQL needs of any shape to render its rows: their table and the JSON. */
export type ShapeInSql = Pick<Shape<Definition>, "table" | "json">;

function fieldOf(entry: SQLiteColumn | AnyField): AnyField {
  if ("render" in entry) return entry;
  return { select: entry, render: (read) => read, json: sql`${entry}`, optional: false };
}

/** The keys are written into the SQL text, so they must be plain names. */
const API_NAME = /^[A-Za-z][A-Za-z0-9]*$/;

function jsonObject(fields: (readonly [string, AnyField])[]): SQL<string> {
  const members = (list: (readonly [string, AnyField])[]) =>
    sql.join(
      list.map(([key, field]) => sql`${sql.raw(`'${key}'`)}, ${field.json}`),
      sql`, `,
    );
  const present = fields.filter(([, field]) => !field.optional);
  const optional = fields.filter(([, field]) => field.optional);
  const object = sql<string>`json_object(${members(present)})`;
  if (optional.length === 0) return object;
  // A merge patch drops the members it sets to null: an optional field is left out when null.
  // (It would also drop null members inside an object-valued optional field; none has one.)
  return sql<string>`json_patch(${object}, json_object(${members(optional)}))`;
}

/** Defines a shape: its table and its fields by API name, in the order the API lists them. */
export function shape<const D extends Definition>(table: SQLiteTable, definition: D): Shape<D> {
  const fields = Object.entries(definition).map(([key, entry]) => {
    if (!API_NAME.test(key)) throw new Error(`a shape's field is named ${JSON.stringify(key)}`);
    return [key, fieldOf(entry)] as const;
  });
  const columns = Object.fromEntries(fields.map(([key, field]) => [key, field.select]));
  const decoded = fields.map(([key, field]) => ({ key, field, decode: decoderOf(field.select) }));
  return {
    table,
    definition,
    columns: columns as Columns<D>,
    json: jsonObject(fields),
    render: (row) => {
      const rendered: Record<string, unknown> = {};
      for (const [key, field] of fields) {
        const read = (row as Record<string, unknown>)[key];
        if (!(field.optional && read === null)) rendered[key] = field.render(read as never);
      }
      return rendered as ApiObject<D>;
    },
    fromValues: (values) => {
      const rendered: Record<string, unknown> = {};
      decoded.forEach(({ key, field, decode }, i) => {
        const stored = values[i] ?? null;
        const read = stored === null ? null : decode(stored);
        if (!(field.optional && read === null)) rendered[key] = field.render(read as never);
      });
      return rendered as ApiObject<D>;
    },
  };
}

/** How a value SQLite gave for `select` becomes what Drizzle's mapping of it reads. */
function decoderOf(select: Selectable): (stored: unknown) => unknown {
  if (!is(select, Column)) return (stored) => stored;
  return (stored) => select.mapFromDriverValue(stored);
}

/** An instant stored in milliseconds, as the API writes it: RFC 3339 UTC with milliseconds. */
function isoInstant(column: SQLWrapper): SQL<string> {
  return sql<string>`strftime('%Y-%m-%dT%H:%M:%S', ${column} / 1000, 'unixepoch') || printf('.%03dZ', ${column} % 1000)`;
}

/** A timestamp column (milliseconds, read as a Date), sent as RFC 3339 UTC with milliseconds. */
export function instant<C extends SQLiteColumn>(column: C): Field<C, string> {
  return {
    select: column,
    render: (read) => (read as Date).toISOString(),
    json: isoInstant(column),
    optional: false,
  };
}

/** A JSON document stored as text, sent as the document. */
export function jsonText<T>(column: SQLiteColumn): Field<SQLiteColumn, T> {
  return {
    select: column,
    render: (read) => JSON.parse(read as string) as T,
    json: sql`json(${column})`,
    optional: false,
  };
}

/** A field left out of the object when it is null. */
export function optional<C extends SQLiteColumn>(
  column: C,
): Field<C, NonNullable<GetColumnData<C>>, true>;
export function optional<S extends Selectable, A>(field: Field<S, A>): Field<S, A, true>;
export function optional(entry: SQLiteColumn | AnyField): AnyField {
  return { ...fieldOf(entry), optional: true };
}

/** A version column, sent as its strong entity tag: the number in double quotes (`"3"`). */
export function entityTag<C extends SQLiteColumn>(column: C): Field<C, string> {
  return {
    select: column,
    render: (read) => `"${read as number}"`,
    json: sql`'"' || ${column} || '"'`,
    optional: false,
  };
}

/** A yes/no column (stored 1 or 0, null when not known), sent as `true`, `false` or `null`. */
export function yesNo<C extends SQLiteColumn>(column: C): Field<C, GetColumnData<C>> {
  return {
    select: column,
    render: (read) => read,
    // json_object writes the integer as it is; json('true') makes it JSON's true.
    json: sql`CASE WHEN ${column} IS NULL THEN NULL WHEN ${column} THEN json('true') ELSE json('false') END`,
    optional: false,
  };
}
