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
import { type Database, type Drizzle, preparedQueries, runValues } from "../db/database.ts";
import { pets } from "../db/schema.ts";
import { petSearch } from "../db/search-tables.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import { type PetFinders, type PetFinderValues, SEARCH_WINDOW, valuesOf } from "./pet-finders.ts";
import { YES_NO_FIELDS } from "./pet-profile.schemas.ts";
import { live, petShape } from "./pets.queries.ts";
import type { Pet } from "./pets.schemas.ts";

/**
 * The listing's finders. Each page walks an index from the cursor in id
 * order, so its cost does not grow with the catalogue:
 *
 * - no filter: the index of live animals;
 * - `status`, `categoryId`, or both, or `shelterId`, `age` or `size` alone:
 *   for each value (or pair of values) its index, up to a page from each,
 *   merged;
 * - `id`: those animals by primary key (at most 100), the other filters
 *   checked on each;
 * - `q` or `breed` (or both) alone: the search index, whose rowids are the
 *   animals' ids;
 * - `q` or `breed` with other filters: a window of at most 10,000 entries of
 *   the search index, the other filters checked on each. The page may then
 *   hold fewer animals than asked, even none, and the next page starts after
 *   the window;
 * - any other combination, and one account's animals (the dashboard's
 *   list): a window of at most 10,000 entries of the index of live animals,
 *   every filter checked on each, the same way.
 *
 * Lists of values are bound as JSON arrays, so one statement serves any list.
 */

export { SEARCH_WINDOW };

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
const search = sql.placeholder("search");
const jsonList = (name: string) => sql`(SELECT value FROM json_each(${sql.placeholder(name)}))`;

/** A list filter that binds null when it is absent: for statements whose cost the list does not drive. */
const optionalList = (column: SQLiteColumn, name: string) =>
  sql`(${sql.placeholder(name)} IS NULL OR ${inArray(column, jsonList(name))})`;
/** A one-value filter that binds null when it is absent. */
const optionalValue = (column: SQLiteColumn, name: string) =>
  sql`(${sql.placeholder(name)} IS NULL OR ${column} = ${sql.placeholder(name)})`;

/** The columns whose values a listing walks an index for, with the JSON list each binds. */
const INDEXED = {
  status: "statuses",
  categoryId: "categoryIds",
  shelterId: "shelterIds",
  age: "ages",
  size: "sizes",
} as const;
type Indexed = keyof typeof INDEXED;

/** Every filter but the search's, each checked on the animal in scope when its value is bound. */
export const checked = and(
  ...(Object.keys(INDEXED) as Indexed[]).map((column) =>
    optionalList(pets[column], INDEXED[column]),
  ),
  optionalValue(pets.sex, "sex"),
  ...YES_NO_FIELDS.map((field) => optionalValue(pets[field], field)),
  optionalValue(pets.accountId, "accountId"),
);

/** The search index's entries `search` matches: the words of names and breeds, by FTS5's column filters. */
export const searchMatches = sql<boolean>`${petSearch} MATCH ${search}`;

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
 * index: for each row of the JSON lists of the columns named, a page of the
 * animals with those values after the cursor; the caller merges them into
 * one page.
 */
function firstOfEach(db: Drizzle, direction: Direction, columns: readonly Indexed[]) {
  const { order, from } = ordering(direction);
  const candidate = alias(pets, "candidate");
  const chosen = alias(pets, "chosen");
  const wanted = (column: Indexed) => sql.identifier(`wanted_${column}`);
  const onePage = db
    .select({ id: candidate.id })
    .from(candidate)
    .where(
      and(
        ...columns.map((column) => sql`${candidate[column]} = ${wanted(column)}."value"`),
        sql`${candidate.deletedAt} IS NULL`,
        from(candidate.id),
      ),
    )
    .orderBy(order(candidate.id))
    .limit(limit);
  const lists = columns.map(
    (column) => sql`json_each(${sql.placeholder(INDEXED[column])}) AS ${wanted(column)}`,
  );
  return sql`(SELECT ${chosen.id} FROM ${sql.join(lists, sql`, `)} JOIN ${pets} AS "chosen" ON ${chosen.id} IN ${onePage})`;
}

/**
 * The ids of an index's entries that `where` selects, from the cursor in the
 * direction's order: at most `entries` of them.
 */
function entriesFrom(
  db: Drizzle,
  direction: Direction,
  index: typeof pets | typeof petSearch,
  id: SQLiteColumn,
  where: SQL,
  entries: Placeholder | number,
) {
  const { order, from } = ordering(direction);
  return db
    .select({ id })
    .from(index)
    .where(and(where, from(id)))
    .orderBy(order(id))
    .limit(entries);
}

/** The search index's entries `search` matches, from the cursor in the direction's order. */
const searched = (db: Drizzle, direction: Direction, entries: Placeholder | number) =>
  entriesFrom(db, direction, petSearch, petSearch.rowid, searchMatches, entries);

/** The index of live animals' entries from the cursor in the direction's order. */
const liveEntries = (db: Drizzle, direction: Direction, entries: number) =>
  entriesFrom(db, direction, pets, pets.id, live, entries);

/**
 * A page from a window of at most SEARCH_WINDOW entries of an index, every
 * filter checked on each, and what the window held: how many entries, and
 * the last, where the next page starts when this one ends short. The page
 * walks the window as SQLite yields it (a co-routine in the index's order)
 * and stops at its limit, so a filter most animals match reads about a page
 * of entries, not the window's all.
 */
function windowed(db: Drizzle, direction: Direction, window: ReturnType<typeof entriesFrom>) {
  const { order } = ordering(direction);
  const entries = window.as("windowed");
  const edge = direction === "asc" ? max : min;
  return {
    page: db
      .select(petShape.columns)
      .from(entries)
      .innerJoin(pets, eq(pets.id, entries.id))
      .where(checked)
      .orderBy(order(entries.id))
      .limit(limit)
      .prepare(),
    window: db
      .select({ entries: count(), edge: edge(entries.id) })
      .from(entries)
      .prepare(),
  };
}

/** Each finder's statements, for one direction. */
function findersFor(db: Drizzle, direction: Direction) {
  const byFirstOfEach = (...columns: Indexed[]) =>
    pageOf(db, direction, inArray(pets.id, firstOfEach(db, direction, columns)));
  return {
    all: pageOf(db, direction, undefined),
    byStatus: byFirstOfEach("status"),
    byCategory: byFirstOfEach("categoryId"),
    byStatusAndCategory: byFirstOfEach("status", "categoryId"),
    byShelter: byFirstOfEach("shelterId"),
    byAge: byFirstOfEach("age"),
    bySize: byFirstOfEach("size"),
    byIds: pageOf(db, direction, and(inArray(pets.id, jsonList("ids")), checked)),
    byIdsAndSearch: pageOf(
      db,
      direction,
      and(
        inArray(pets.id, jsonList("ids")),
        checked,
        sql`EXISTS (SELECT 1 FROM ${petSearch} WHERE ${searchMatches} AND ${petSearch.rowid} = ${pets.id})`,
      ),
    ),
    bySearch: pageOf(db, direction, inArray(pets.id, searched(db, direction, limit))),
    searchWindow: windowed(db, direction, searched(db, direction, SEARCH_WINDOW)),
    liveWindow: windowed(db, direction, liveEntries(db, direction, SEARCH_WINDOW)),
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
  const filters = valuesOf(query);
  const values = {
    position: query.after ?? (query.direction === "asc" ? 0 : MAX_ID + 1),
    limit: query.limit + 1,
    ...filters,
  };
  const chosen = statementFor(finders, filters);
  const rows = await guardStorage("D1", () =>
    runValues(db, "window" in chosen ? chosen.page : chosen, values),
  );
  const page = pageFrom(rows, query.limit);
  if (!("window" in chosen) || page.next !== undefined) return page;
  // A short page examined its whole window: when that held all it may, the next page starts after it.
  const windows = await guardStorage("D1", () => runValues(db, chosen.window, values));
  // The window's one row: how many entries it held, and the last (null when none).
  const [entries, edge] = (windows[0] ?? []) as [number?, (number | null)?];
  return entries === SEARCH_WINDOW && edge != null ? { ...page, next: edge } : page;
}

/**
 * The statement that finds a page for the filters bound: one an index
 * serves whole when there is one, a window otherwise.
 */
function statementFor(finders: ReturnType<typeof findersFor>, values: PetFinderValues) {
  const { ids, search } = values;
  if (ids !== null) return search === null ? finders.byIds : finders.byIdsAndSearch;
  const narrowing = narrowingOf(values);
  if (search !== null) return narrowing === "" ? finders.bySearch : finders.searchWindow;
  return finders[INDEXED_FINDERS.get(narrowing) ?? "liveWindow"];
}

/** The finder an index serves whole, by the narrowing it serves (as `narrowingOf` spells it). */
const INDEXED_FINDERS = new Map<string, keyof ReturnType<typeof findersFor>>([
  ["", "all"],
  ["statuses", "byStatus"],
  ["categoryIds", "byCategory"],
  ["statuses categoryIds", "byStatusAndCategory"],
  ["shelterIds", "byShelter"],
  ["ages", "byAge"],
  ["sizes", "bySize"],
]);

/**
 * The names of the filters bound besides `ids` and `search`, in the order
 * `valuesOf` gives them, joined by spaces: "" when none is. Read on every
 * page, so it walks the values without building lists of them.
 */
function narrowingOf(values: PetFinderValues): string {
  let narrowing = "";
  for (const name in values) {
    if (name === "ids" || name === "search" || values[name as keyof PetFinderValues] === null) {
      continue;
    }
    narrowing = narrowing === "" ? name : `${narrowing} ${name}`;
  }
  return narrowing;
}

/** The page of `rows` read with one extra, and where the next begins when that extra was there. */
function pageFrom(rows: readonly unknown[][], limit: number): PetPage {
  const pets = rows.slice(0, limit).map(petShape.fromValues);
  const last = pets.at(-1);
  return { pets, next: rows.length > limit && last ? last.id : undefined };
}
