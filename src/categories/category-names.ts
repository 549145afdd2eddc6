import { eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Drizzle } from "../db/database.ts";
import { categories } from "../db/schema.ts";
import { categoryNames, matches } from "../db/search-tables.ts";

/**
 * Category names are unique ignoring case and accents, with the very
 * folding `q` uses: two names are the same when they are the same words as
 * SQLite's unicode61 tokenizer (remove_diacritics 2) reads them ("Cats",
 * "cats", "Cáts!"), or, for names without a word, the same text. Nothing
 * outside SQLite folds text exactly as that tokenizer does, so the index of
 * category names decides: a change first writes the name it proposes at
 * rowid 0, then a name is taken when its words begin the proposed name and
 * the proposed name's words begin it, both read from the index.
 */

/** Where the index holds the name a change proposes; no category has id 0. */
const PROPOSED = 0;

/** The columns of categories, or of an alias of them, that the comparison reads. */
interface NamedRecords {
  id: SQLiteColumn;
  name: SQLiteColumn;
  deletedAt: SQLiteColumn;
}

/** FTS5 query text for a name's words, from its first word on: `^"…"`, quotes doubled. */
const initialPhrase = (name: SQL) => sql`'^"' || replace(${name}, '"', '""') || '"'`;

/** The two steps that put the proposed name (bound as `name`) in the index, where the last one left it. */
export const proposal = {
  cleared: (db: Drizzle) =>
    db.delete(categoryNames).where(eq(categoryNames.rowid, PROPOSED)).prepare(),
  proposed: (db: Drizzle) =>
    db
      .insert(categoryNames)
      .values({ rowid: PROPOSED, name: sql`${sql.placeholder("name")}` })
      .prepare(),
};

/**
 * SQL true for a live category, other than the one with id `except`, whose
 * name is the same as the proposed one.
 */
export function sameNameAsProposed(other: NamedRecords, except: SQLWrapper): SQL<boolean> {
  const proposed = alias(categoryNames, "proposed");
  const name = sql.placeholder("name");
  return sql<boolean>`(${other.id} <> ${except} AND ${other.deletedAt} IS NULL AND (
    ${other.name} = ${name}
    OR (${other.id} IN (SELECT ${categoryNames.rowid} FROM ${categoryNames} WHERE ${matches(categoryNames.name, initialPhrase(sql`${name}`))})
      AND EXISTS (SELECT 1 FROM ${categoryNames} AS "proposed" WHERE ${proposed.rowid} = ${PROPOSED} AND ${matches(proposed.name, initialPhrase(sql`${other.name}`))}))))`;
}

/** The live category already named as proposed, other than `except`: why a proposed name was refused. */
export function takenBy(db: Drizzle, except: SQLWrapper) {
  const other = alias(categories, "other");
  return db
    .select({ id: other.id })
    .from(other)
    .where(sameNameAsProposed(other, except))
    .limit(1)
    .prepare();
}
