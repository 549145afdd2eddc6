import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { integer, type SQLiteColumn, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The FTS5 tables of names (`migrations/0001_search_indexes.sql`), declared
 * for the query builder only. They stay out of `schema.ts`, from which
 * drizzle-kit generates migrations, because it cannot express a virtual
 * table; their migration is written by hand. Each is contentless: it keeps
 * only the words of each name, under the rowid of the record it indexes,
 * and each change writes it in its own batch.
 */

/** The words of each live animal's name, by the animal's id: what `q` searches. */
export const petSearch = sqliteTable("pet_search", {
  rowid: integer("rowid").notNull(),
  name: text("name").notNull(),
});

/**
 * The words of each category's name, by the category's id, and at rowid 0
 * the name a change is about to give a category: two names are the same
 * when each begins with the other's words (see `src/categories/category-names.ts`).
 */
export const categoryNames = sqliteTable("category_names", {
  rowid: integer("rowid").notNull(),
  name: text("name").notNull(),
});

/** `table MATCH query`: the rows of an FTS5 table whose words the query matches. */
export function matches(table: { name: SQLiteColumn }, query: SQLWrapper): SQL<boolean> {
  // The column stands for its table: FTS5 searches every column it names, and these have one.
  return sql<boolean>`${table.name} MATCH ${query}`;
}
