import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  inArray,
  lt,
  max,
  min,
  type Placeholder,
  type SQL,
  sql,
} from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Direction } from "../api/cursor.ts";
import { MAX_ID } from "../api/identifiers.ts";
import { type Database, type Drizzle, preparedQueries, runAll, runOne } from "../db/database.ts";
import { pets } from "../db/schema.ts";
import { matches, petSearch } from "../db/search-tables.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import { live, petShape } from "./pets.queries.ts";
import type { Pet, PetStatus } from "./pets.schemas.ts";

/**
 * The listing's finders. Each page walks an index from the cursor in id
 * order, so its cost does not grow with the catalogue:
 *
 * - no filter: the index of live animals;
 * - `status`, `categoryId`, or both: for each value (or pair of values) its
 *   index, up to a page from each, merged;
 * - `id`: those animals by primary key (at most 100), the other filters
 *   checked on each;
 * - `q` alone: the search index, whose rowids are the animals' ids;
 * - `q` with `status` or `categoryId`: a window of at most 10,000 entries of
 *   the search index, the other filters checked on each. The page may then
 *   hold fewer animals than asked, even none, and the next page starts after
 *   the window;
 * - one account's animals (the dashboard's list): a window of at most 10,000
 *   entries of the index of live animals, every filter checked on each, the
 *   same way.
 *
 * Lists of values are bound as JSON arrays, so one statement serves any list.
 */

/** The most search index entries one page of `q` with another filter examines. */
export const SEARCH_WINDOW = 10_000;

interface PetFinders {
  statuses?: readonly PetStatus[] | undefined;
  categoryIds?: readonly number[] | undefined;
  ids?: readonly number[] | undefined;
  /** The FTS5 query made of `q`'s words; undefined when there is none. */
  words?: string | undefined;
  /** Only this account's animals. */
  accountId?: number | undefined;
}

interface PetPageQuery extends PetFinders {
  direction: Direction;
  /** The id the page starts after (before, newest first); undefined for the first page. */
  after: number | undefined;
  limit: number;
}

interface PetPage {
  pets: Pet[];
  /** Where the next page starts (the last id this page examined), when another may follow. */
  next: number | undefined;
}

const position = sql.placeholder("position");
const limit = sql.placeholder("limit");
const jsonList = (name: string) => sql`(SELECT value FROM json_each(${sql.placeholder(name)}))`;

/** A list filter that binds null when it is absent: for statements whose cost the list does not drive. */
const optionalList = (column: SQLiteColumn, name: string) =>
  sql`(${sql.placeholder(name)} IS NULL OR ${inArray(column, jsonList(name))})`;

/** The order of a direction, and the part of the index it walks from the cursor. */
function ordering(direction: Direction) {
  return direction === "asc"
    ? { order: asc, from: (id: SQLiteColumn) => gt(id, position) }
    : { order: desc, from: (id: SQLiteColumn) => lt(id, position) };
}

/** A page of live animals that `where` selects, in the direction's order. */
function pageOf(db: Drizzle, direction: Direction, where: SQL | undefined) {
  const { order, from } = ordering(direction);
  return db
    .select(petShape.columns)
    .from(pets)
    .where(and(live, from(pets.id), where))
    .orderBy(order(pets.id))
    .limit(limit)
    .prepare();
}

/**
 * The first page of each wanted value (and pair of values), from its own
 * index: for each row of the JSON lists named, a page of the animals with
 * those values after the cursor; the caller merges them into one page.
 */
function firstOfEach(db: Drizzle, direction: Direction, lists: { status?: true; category?: true }) {
  const { order, from } = ordering(direction);
  const candidate = alias(pets, "candidate");
  const chosen = alias(pets, "chosen");
  const wanted = [
    lists.status ? sql`json_each(${sql.placeholder("statuses")}) AS "wanted_status"` : undefined,
    lists.category
      ? sql`json_each(${sql.placeholder("categoryIds")}) AS "wanted_category"`
      : undefined,
  ].filter((source) => source !== undefined);
  const onePage = db
    .select({ id: candidate.id })
    .from(candidate)
    .where(
      and(
        lists.status ? sql`${candidate.status} = "wanted_status"."value"` : undefined,
        lists.category ? sql`${candidate.categoryId} = "wanted_category"."value"` : undefined,
        sql`${candidate.deletedAt} IS NULL`,
        from(candidate.id),
      ),
    )
    .orderBy(order(candidate.id))
    .limit(limit);
  return sql`(SELECT ${chosen.id} FROM ${sql.join(wanted, sql`, `)} JOIN ${pets} AS "chosen" ON ${chosen.id} IN ${onePage})`;
}

/** The search index's entries `q`'s words match, from the cursor in the direction's order. */
function searched(db: Drizzle, direction: Direction, entries: Placeholder | number) {
  const { order, from } = ordering(direction);
  return db
    .select({ id: petSearch.rowid })
    .from(petSearch)
    .where(and(matches(petSearch, sql.placeholder("words")), from(petSearch.rowid)))
    .orderBy(order(petSearch.rowid))
    .limit(entries);
}

/** A window of the index of live animals from the cursor in the direction's order. */
function liveWindow(db: Drizzle, direction: Direction) {
  const { order, from } = ordering(direction);
  return db
    .select({ id: pets.id })
    .from(pets)
    .where(and(live, from(pets.id)))
    .orderBy(order(pets.id))
    .limit(SEARCH_WINDOW);
}

/** Each finder's statements, for one direction. */
function findersFor(db: Drizzle, direction: Direction) {
  const otherFilters = and(
    optionalList(pets.status, "statuses"),
    optionalList(pets.categoryId, "categoryIds"),
  );
  const window = searched(db, direction, SEARCH_WINDOW);
  const windowEntries = window.as("searched");
  const accountEntries = liveWindow(db, direction).as("live");
  const edge = direction === "asc" ? max : min;
  return {
    all: pageOf(db, direction, undefined),
    byStatus: pageOf(db, direction, inArray(pets.id, firstOfEach(db, direction, { status: true }))),
    byCategory: pageOf(
      db,
      direction,
      inArray(pets.id, firstOfEach(db, direction, { category: true })),
    ),
    byStatusAndCategory: pageOf(
      db,
      direction,
      inArray(pets.id, firstOfEach(db, direction, { status: true, category: true })),
    ),
    byIds: pageOf(db, direction, and(inArray(pets.id, jsonList("ids")), otherFilters)),
    byIdsAndWords: pageOf(
      db,
      direction,
      and(
        inArray(pets.id, jsonList("ids")),
        otherFilters,
        sql`EXISTS (SELECT 1 FROM ${petSearch} WHERE ${matches(petSearch, sql.placeholder("words"))} AND ${petSearch.rowid} = ${pets.id})`,
      ),
    ),
    byWords: pageOf(db, direction, inArray(pets.id, searched(db, direction, limit))),
    inWindow: pageOf(db, direction, and(inArray(pets.id, window), otherFilters)),
    window: db
      .select({ entries: count(), edge: edge(windowEntries.id) })
      .from(windowEntries)
      .prepare(),
    ofAccount: pageOf(
      db,
      direction,
      and(
        inArray(pets.id, liveWindow(db, direction)),
        eq(pets.accountId, sql.placeholder("accountId")),
        otherFilters,
        sql`(${sql.placeholder("words")} IS NULL OR EXISTS (SELECT 1 FROM ${petSearch} WHERE ${matches(petSearch, sql.placeholder("words"))} AND ${petSearch.rowid} = ${pets.id}))`,
      ),
    ),
    accountWindow: db
      .select({ entries: count(), edge: edge(accountEntries.id) })
      .from(accountEntries)
      .prepare(),
  };
}

/** The finders' statements, prepared once per database (exported so a test can read their plans). */
export const petFinders = preparedQueries((db: Drizzle) => ({
  asc: findersFor(db, "asc"),
  desc: findersFor(db, "desc"),
}));

/**
 * One page of the animals the finders select, in the direction asked; one
 * extra row tells whether another page follows.
 */
export async function listPets(db: Database, query: PetPageQuery): Promise<PetPage> {
  const finders = petFinders(db)[query.direction];
  const json = (list: readonly unknown[] | undefined) =>
    list === undefined ? null : JSON.stringify(list);
  const values = {
    position: query.after ?? (query.direction === "asc" ? 0 : MAX_ID + 1),
    limit: query.limit + 1,
    statuses: json(query.statuses),
    categoryIds: json(query.categoryIds),
    ids: json(query.ids),
    words: query.words ?? null,
    accountId: query.accountId ?? null,
  };
  const windowed =
    query.accountId !== undefined
      ? [finders.ofAccount, finders.accountWindow]
      : query.words !== undefined && query.ids === undefined && narrowed(query)
        ? [finders.inWindow, finders.window]
        : undefined;
  if (windowed) {
    const [rows, bounds] = await guardStorage("D1", () => runAll(db, windowed, values));
    const page = pageFrom(rows as PetRow[], query.limit);
    const [window] = bounds as { entries: number; edge: number | null }[];
    const full = window !== undefined && window.entries === SEARCH_WINDOW && window.edge !== null;
    return page.next === undefined && full ? { ...page, next: window.edge ?? undefined } : page;
  }
  const rows = await guardStorage("D1", () => runOne(db, statementFor(finders, query), values));
  return pageFrom(rows, query.limit);
}

/** Whether `status` or `categoryId` narrows the listing. */
function narrowed(query: PetFinders): boolean {
  return query.statuses !== undefined || query.categoryIds !== undefined;
}

/** The statement that finds a page for the filters the query gives, when no window is needed. */
function statementFor(finders: ReturnType<typeof findersFor>, query: PetFinders) {
  if (query.ids !== undefined) {
    return query.words === undefined ? finders.byIds : finders.byIdsAndWords;
  }
  if (query.words !== undefined) return finders.byWords;
  if (query.statuses === undefined) {
    return query.categoryIds === undefined ? finders.all : finders.byCategory;
  }
  return query.categoryIds === undefined ? finders.byStatus : finders.byStatusAndCategory;
}

type PetRow = Parameters<typeof petShape.render>[0];

/** The page of `rows` read with one extra, and where the next begins when that extra was there. */
function pageFrom(rows: PetRow[], limit: number): PetPage {
  const listed = rows.slice(0, limit);
  const last = listed.at(-1);
  return {
    pets: listed.map(petShape.render),
    next: rows.length > limit && last ? last.id : undefined,
  };
}
