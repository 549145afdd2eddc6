import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { boundList, type Database, type Drizzle, preparedQueries, runOne } from "../db/database.ts";
import { shelterSearch } from "../db/search-tables.ts";
import { shelters } from "../db/shelters-table.ts";
import { SEARCH_WINDOW } from "../pets/pet-finders.ts";
import { cutPage, guardStorage } from "../storage/storage-guard.ts";
import { distanceKmOf, nearShelters, placeValues } from "./near.queries.ts";
import type { Nearby } from "./near.schemas.ts";
import type { NearPosition } from "./near-cursor.ts";
import { shelterShape } from "./shelters.queries.ts";
import type { Shelter } from "./shelters.schemas.ts";

/**
 * The listing of shelters near a place: those the R*Tree's box selects and
 * haversine keeps (see `near.queries.ts`), the other finders (`id`, `q`,
 * `country`) checked on each, by distance in 100 m units then id, or by id.
 * A page examines a window of at most 10,000 of those shelters from the
 * cursor, so with other finders it may hold fewer than asked (even none),
 * and the next page starts after the window. With no other finder, one
 * statement makes the page (see `placesOnly`). Otherwise a first statement reads the
 * circle's places from the R*Tree alone, one row each; the Worker puts them
 * in the listing's order and binds the window to the page as a JSON array
 * of `[id, unit]`, which the page reads in order, each shelter by key,
 * until it has the page (SQLite sorts nothing, so reads no further).
 */

const words = sql.placeholder("words");
const jsonList = (name: string) => sql`(SELECT value FROM json_each(${sql.placeholder(name)}))`;

/** The shelters' own finders, each checked on the shelter in scope when its value is bound. */
const everyFilter = and(
  sql`(${sql.placeholder("ids")} IS NULL OR ${inArray(shelters.id, jsonList("ids"))})`,
  sql`(${sql.placeholder("countries")} IS NULL OR ${inArray(shelters.country, jsonList("countries"))})`,
  sql`(${words} IS NULL OR EXISTS (SELECT 1 FROM ${shelterSearch} WHERE ${shelterSearch} MATCH ${words} AND ${shelterSearch.rowid} = ${shelters.id}))`,
);

/** The shelters of the window bound, in its order. */
const windowed = sql`json_each(${sql.placeholder("window")}) AS windowed`;
const windowUnit = sql<number>`windowed.value ->> 1`;

/**
 * A page with no finder but the place's, in one statement: the circle's
 * places after the cursor, sorted by SQLite and cut at the page, then each
 * one's shelter by key. Every shelter of the window is kept, so the page
 * is full unless the circle ends, and the Worker need not see the window.
 */
function placesOnly(db: Drizzle, sort: Nearby["sort"]) {
  const near = nearShelters(db);
  const id = sql<number>`${near.shelterId}`;
  const cursor = sql.placeholder("afterId");
  const placed = db
    .select({ shelterId: near.shelterId, unit: near.unit })
    .from(near)
    .where(
      sort === "distance"
        ? sql`(${near.unit}, ${id}) > (${sql.placeholder("afterUnit")}, ${cursor})`
        : sql`${id} > ${cursor}`,
    )
    .orderBy(...(sort === "distance" ? [asc(near.unit), asc(id)] : [asc(id)]))
    .limit(sql.placeholder("limit"))
    .as("placed");
  return (
    db
      .select({
        ...shelterShape.columns,
        distanceKm: distanceKmOf(placed.unit),
        unit: sql<number>`${placed.unit}`.as("near_unit"),
      })
      // The places first, in their order, each shelter by key: a cross join keeps them the outer loop.
      .from(placed)
      .crossJoin(shelters)
      .where(eq(shelters.id, placed.shelterId))
      .prepare()
  );
}

/**
 * The statements: a page with no other finder in one; otherwise the
 * circle's places, and a page of the window's shelters that every finder keeps.
 */
function statementsOf(db: Drizzle) {
  const near = nearShelters(db);
  return {
    placesOnly: { distance: placesOnly(db, "distance"), id: placesOnly(db, "id") },
    circle: db.select({ shelterId: near.shelterId, unit: near.unit }).from(near).prepare(),
    page: db
      .select({
        ...shelterShape.columns,
        distanceKm: distanceKmOf(windowUnit),
        unit: windowUnit.as("near_unit"),
      })
      // The window first, in its order, each shelter by key: a cross join keeps it the outer loop.
      .from(windowed)
      .crossJoin(shelters)
      .where(and(sql`${shelters.id} = windowed.value ->> 0`, everyFilter))
      .limit(sql.placeholder("limit"))
      .prepare(),
  };
}

/** The statements, prepared once per database (exported so a test can read their plans). */
export const nearShelterFinders = preparedQueries(statementsOf);

interface NearShelterQuery {
  nearby: Nearby;
  ids?: readonly number[] | undefined;
  words?: string | undefined;
  countries?: readonly string[] | undefined;
  after: NearPosition | undefined;
  limit: number;
}

type Place = { shelterId: number; unit: number };

/** The first 10,000 shelters of the circle after the cursor, in the listing's order: the window a page examines. */
function windowOf(circle: readonly Place[], sort: Nearby["sort"], after: NearPosition | undefined) {
  const byDistance = (a: Place, b: Place) => a.unit - b.unit || a.shelterId - b.shelterId;
  const byId = (a: Place, b: Place) => a.shelterId - b.shelterId;
  const later = (place: Place) =>
    after === undefined ||
    (sort === "distance"
      ? place.unit > after.unit || (place.unit === after.unit && place.shelterId > after.id)
      : place.shelterId > after.id);
  return circle
    .filter(later)
    .toSorted(sort === "distance" ? byDistance : byId)
    .slice(0, SEARCH_WINDOW);
}

/** One page of the shelters near the place, and where the next starts when another may follow. */
export async function listSheltersNear(
  db: Database,
  query: NearShelterQuery,
): Promise<{ shelters: Shelter[]; next: NearPosition | undefined }> {
  const { placesOnly, circle, page } = nearShelterFinders(db);
  const place = placeValues(query.nearby);
  if (query.ids === undefined && query.countries === undefined && query.words === undefined) {
    const values = {
      ...place,
      afterUnit: query.after?.unit ?? -1,
      afterId: query.after?.id ?? 0,
      limit: query.limit + 1,
    };
    const found = await guardStorage("D1", () => runOne(db, placesOnly[query.nearby.sort], values));
    return pageOf(found, query.limit, undefined);
  }
  const window = windowOf(
    await guardStorage("D1", () => runOne(db, circle, place)),
    query.nearby.sort,
    query.after,
  );
  const values = {
    ...place,
    window: JSON.stringify(window.map(({ shelterId, unit }) => [shelterId, unit])),
    ids: boundList(query.ids),
    countries: boundList(query.countries),
    words: query.words ?? null,
    limit: query.limit + 1,
  };
  const found = window.length === 0 ? [] : await guardStorage("D1", () => runOne(db, page, values));
  const edge = window.at(-1);
  const full = edge !== undefined && window.length === SEARCH_WINDOW;
  return pageOf(found, query.limit, full ? { unit: edge.unit, id: edge.shelterId } : undefined);
}

type Found = Parameters<typeof shelterShape.render>[0] & { unit: number };

/** The page, and where the next starts: after its last shelter when more follow, else after a full window (`windowEnd`). */
function pageOf(found: Found[], size: number, windowEnd: NearPosition | undefined) {
  const { listed, hasMore } = cutPage(found, size);
  const last = listed.at(-1);
  const next = hasMore && last ? { unit: last.unit, id: last.id } : windowEnd;
  return { shelters: listed.map(({ unit: _unit, ...row }) => shelterShape.render(row)), next };
}
