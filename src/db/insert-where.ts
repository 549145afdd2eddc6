import type { SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Drizzle } from "./database.ts";

/**
 * An INSERT … SELECT of one row into a table: its every column, copied from
 * `from` or a value aliased to the column, selected `from` where `where`
 * holds, so the row is added only then. The write and what decides it are
 * one statement, so nothing can come between them.
 */
interface SelectedRow<T extends SQLiteTable> {
  row: { [K in keyof T["$inferInsert"]]-?: SQLiteColumn | SQL.Aliased };
  from: SQLiteTable | SQL;
  where: SQL | undefined;
}

/** The statement that adds `row` to `table` only where `where` holds in `from`. */
export function insertWhere<T extends SQLiteTable>(
  db: Drizzle,
  table: T,
  { row, from, where }: SelectedRow<T>,
) {
  return db.insert(table).select(db.select(row).from(from).where(where));
}
