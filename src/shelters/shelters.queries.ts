import {
  and,
  asc,
  count,
  eq,
  gt,
  inArray,
  isNull,
  max,
  type Placeholder,
  type SQL,
  sql,
} from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { type Changer, changerValues, ownedByCaller } from "../catalogue/ownership.ts";
import {
  boundList,
  type Database,
  type Drizzle,
  preparedQueries,
  runAll,
  runOne,
} from "../db/database.ts";
import { pets } from "../db/schema.ts";
import { shelterSearch } from "../db/search-tables.ts";
import { entityTag, type Field, shape } from "../db/shape.ts";
import { shelters } from "../db/shelters-table.ts";
import { SEARCH_WINDOW } from "../pets/pet-finders.ts";
import { firstRow, guardStorage } from "../storage/storage-guard.ts";
import { unmeasuredDistance } from "./distance.ts";
import type { Shelter } from "./shelters.schemas.ts";

/** The address's columns as one JSON object, in the API's order. */
const addressObject = sql<string>`json_object('street', ${shelters.street}, 'city', ${shelters.city}, 'region', ${shelters.region}, 'postalCode', ${shelters.postalCode}, 'country', ${shelters.country})`;

/** A shelter's address: five columns, sent as one object. */
const address: Field<SQL.Aliased<string>, Shelter["address"]> = {
  // Wrapped: a select from one table writes its fields' own columns unqualified.
  select: sql<string>`${addressObject}`.as("address"),
  render: (read) => JSON.parse(read) as Shelter["address"],
  json: addressObject,
  optional: false,
};

/** A shelter as the API returns it. */
export const shelterShape = shape(shelters, {
  id: shelters.id,
  name: shelters.name,
  email: shelters.email,
  phone: shelters.phone,
  website: shelters.website,
  address,
  latitude: shelters.latitude,
  longitude: shelters.longitude,
  distanceKm: unmeasuredDistance,
  etag: entityTag(shelters.version),
});

/** Shelters not deleted: a deleted shelter's row stays as a tombstone that nothing shows. */
export const liveShelter = isNull(shelters.deletedAt);

const shelterId = sql.placeholder("id");
const position = sql.placeholder("position");
const limit = sql.placeholder("limit");
const words = sql.placeholder("words");
const jsonList = (name: string) => sql`(SELECT value FROM json_each(${sql.placeholder(name)}))`;
const optionalList = (name: string) =>
  sql`(${sql.placeholder(name)} IS NULL OR ${inArray(shelters.country, jsonList(name))})`;

/** An animal that is not deleted lives in the shelter in scope. */
const livesThere = (db: Drizzle) =>
  db
    .select({ id: pets.id })
    .from(pets)
    .where(and(eq(pets.shelterId, shelters.id), isNull(pets.deletedAt)));

/** A page of live shelters after the cursor that `where` selects, in id order. */
function pageOf(db: Drizzle, where: SQL | undefined) {
  return db
    .select(shelterShape.columns)
    .from(shelters)
    .where(and(liveShelter, gt(shelters.id, position), where))
    .orderBy(asc(shelters.id))
    .limit(limit)
    .prepare();
}

/** The names index's entries `q`'s words match, after the cursor. */
function searched(db: Drizzle, entries: Placeholder | number) {
  return db
    .select({ id: shelterSearch.rowid })
    .from(shelterSearch)
    .where(and(sql`${shelterSearch} MATCH ${words}`, gt(shelterSearch.rowid, position)))
    .orderBy(asc(shelterSearch.rowid))
    .limit(entries);
}

/** Each country's page of shelters after the cursor, from the country index, merged. */
function firstOfEachCountry(db: Drizzle) {
  const candidate = alias(shelters, "candidate");
  const chosen = alias(shelters, "chosen");
  const onePage = db
    .select({ id: candidate.id })
    .from(candidate)
    .where(
      and(
        sql`${candidate.country} = "wanted"."value"`,
        sql`${candidate.deletedAt} IS NULL`,
        gt(candidate.id, position),
      ),
    )
    .orderBy(asc(candidate.id))
    .limit(limit);
  return sql`(SELECT ${chosen.id} FROM json_each(${sql.placeholder("countries")}) AS "wanted" JOIN ${shelters} AS "chosen" ON ${chosen.id} IN ${onePage})`;
}

/**
 * The shelters' reads, prepared once per database. The listing's finders
 * walk an index from the cursor as the animals' do: the live shelters, each
 * country's, the names index for `q`, the ids asked for; `q` with
 * `country` examines a window of at most 10,000 entries of the names index.
 */
export const shelterQueries = preparedQueries((db: Drizzle) => {
  const window = searched(db, SEARCH_WINDOW);
  const entries = window.as("searched");
  return {
    all: pageOf(db, undefined),
    byCountry: pageOf(db, inArray(shelters.id, firstOfEachCountry(db))),
    byIds: pageOf(
      db,
      and(
        inArray(shelters.id, jsonList("ids")),
        optionalList("countries"),
        sql`(${words} IS NULL OR EXISTS (SELECT 1 FROM ${shelterSearch} WHERE ${shelterSearch} MATCH ${words} AND ${shelterSearch.rowid} = ${shelters.id}))`,
      ),
    ),
    byWords: pageOf(db, inArray(shelters.id, searched(db, limit))),
    inWindow: pageOf(db, and(inArray(shelters.id, window), optionalList("countries"))),
    window: db
      .select({ entries: count(), edge: max(entries.id) })
      .from(entries)
      .prepare(),
    find: db
      .select(shelterShape.columns)
      .from(shelters)
      .where(and(eq(shelters.id, shelterId), liveShelter))
      .prepare(),
    forChange: db
      .select({
        ...shelterShape.columns,
        owned: ownedByCaller(shelters.accountId).mapWith(Boolean).as("owned"),
        inUse: sql<boolean>`EXISTS ${livesThere(db)}`.mapWith(Boolean).as("in_use"),
      })
      .from(shelters)
      .where(and(eq(shelters.id, shelterId), liveShelter))
      .prepare(),
  };
});

/** What a listing of shelters is narrowed by. */
interface ShelterFinders {
  ids?: readonly number[] | undefined;
  /** The FTS5 query made of `q`'s words. */
  words?: string | undefined;
  countries?: readonly string[] | undefined;
}

/** One page of the shelters the finders select, in id order; `next` is where another may start. */
export async function listShelters(
  db: Database,
  query: ShelterFinders & { after: number | undefined; limit: number },
): Promise<{ shelters: Shelter[]; next: number | undefined }> {
  const statements = shelterQueries(db);
  const values = {
    position: query.after ?? 0,
    limit: query.limit + 1,
    ids: boundList(query.ids),
    words: query.words ?? null,
    countries: boundList(query.countries),
  };
  const page = (rows: Parameters<typeof shelterShape.render>[0][]) => {
    const listed = rows.slice(0, query.limit);
    const last = listed.at(-1);
    return {
      shelters: listed.map(shelterShape.render),
      next: rows.length > query.limit && last ? last.id : undefined,
    };
  };
  if (query.ids === undefined && query.words !== undefined && query.countries !== undefined) {
    const [rows, bounds] = await guardStorage("D1", () =>
      runAll(db, [statements.inWindow, statements.window], values),
    );
    const found = page(rows as Parameters<typeof page>[0]);
    const [window] = bounds as { entries: number; edge: number | null }[];
    const full = window !== undefined && window.entries === SEARCH_WINDOW && window.edge !== null;
    return found.next === undefined && full ? { ...found, next: window.edge ?? undefined } : found;
  }
  const statement =
    query.ids !== undefined
      ? statements.byIds
      : query.words !== undefined
        ? statements.byWords
        : query.countries !== undefined
          ? statements.byCountry
          : statements.all;
  return page(await guardStorage("D1", () => runOne(db, statement, values)));
}

export async function findShelter(db: Database, id: number): Promise<Shelter | undefined> {
  const row = await firstRow(db, shelterQueries(db).find, { id });
  return row && shelterShape.render(row);
}

/** A shelter as a change finds it, with what decides whether the change may happen. */
export interface ShelterForChange {
  shelter: Shelter;
  version: number;
  owned: boolean;
  /** Whether an animal that is not deleted lives there. */
  inUse: boolean;
}

/** The live shelter a change is about, read where changes are made; undefined when there is none. */
export async function readShelterForChange(
  db: Database,
  id: number,
  changer: Changer,
): Promise<ShelterForChange | undefined> {
  const values = { id, ...changerValues(changer) };
  const row = await firstRow(db, shelterQueries(db).forChange, values);
  if (!row) return undefined;
  const { owned, inUse, ...columns } = row;
  // Read, the etag field is the version number it renders.
  return { shelter: shelterShape.render(columns), version: columns.etag, owned, inUse };
}
