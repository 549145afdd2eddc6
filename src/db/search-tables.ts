import { and, eq, getTableColumns, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { integer, type SQLiteColumn, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { Drizzle } from "./database.ts";
import { insertWhere } from "./insert-where.ts";
import type { categories, pets } from "./schema.ts";
import type { shelters } from "./shelters-table.ts";

/**
 * The FTS5 tables of names (`migrations/0001_search_indexes.sql`), declared
 * for the query builder only. They stay out of `schema.ts`, from which
 * drizzle-kit generates migrations, because it cannot express a virtual
 * table; their migration is written by hand. Each is contentless: it keeps
 * only the words of each name (and breed), under the rowid of the record it
 * indexes, and each change writes it in its own batch. An index's columns
 * are named as the record's own columns whose words they hold.
 */

/** The words of each live animal's name and breed, by the animal's id: what `q` and `breed` search. */
export const petSearch = sqliteTable("pet_search", {
  rowid: integer("rowid").notNull(),
  name: text("name").notNull(),
  breed: text("breed"),
});

/** The words of each live shelter's name, by the shelter's id: what the shelters' `q` searches. */
export const shelterSearch = sqliteTable("shelter_search", {
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

/** `column MATCH query`: the rows of an FTS5 table whose words in that column the query matches. */
export function matches(column: SQLiteColumn, query: SQLWrapper): SQL<boolean> {
  return sql<boolean>`${column} MATCH ${query}`;
}

/** An index of words, with the table whose words it holds. */
type IndexOf =
  | { index: typeof petSearch; of: typeof pets }
  | { index: typeof categoryNames; of: typeof categories }
  | { index: typeof shelterSearch; of: typeof shelters };

/**
 * A change's step that writes the words of the row `which` finds into its
 * index, if the statement before it changed one row.
 */
export function indexName(db: Drizzle, { index, of }: IndexOf, which: SQL) {
  const { rowid: _rowid, ...indexed } = getTableColumns(index);
  const ofColumns: Record<string, SQLiteColumn> = getTableColumns(of);
  const words = Object.fromEntries(Object.keys(indexed).map((key) => [key, ofColumns[key]]));
  return insertWhere(db, index, {
    row: { rowid: of.id, ...(words as { name: typeof of.name }) },
    from: of,
    where: and(which, sql`changes() = 1`),
  }).prepare();
}

/** A change's step that takes the words of the row with this id out of its index, if the statement before changed one row. */
export function unindexName(db: Drizzle, { index }: IndexOf, id: SQLWrapper) {
  return db
    .delete(index)
    .where(and(eq(index.rowid, id), sql`changes() = 1`))
    .prepare();
}
