import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { type Database, type Drizzle, preparedQueries, runAll } from "../db/database.ts";
import { shelterSearch } from "../db/search-tables.ts";
import { shelters } from "../db/shelters-table.ts";
import { SEARCH_WINDOW } from "../pets/pet-finders.ts";
import { guardStorage } from "../storage/storage-guard.ts";
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
 * and the next page starts after the window.
 */

const position = sql.placeholder("position");
const unit = sql.placeholder("unit");
const words = sql.placeholder("words");
const jsonList = (name: string) => sql`(SELECT value FROM json_each(${sql.placeholder(name)}))`;

/** The shelters' own finders, each checked on the shelter in scope when its value is bound. */
const everyFilter = and(
  sql`(${sql.placeholder("ids")} IS NULL OR ${inArray(shelters.id, jsonList("ids"))})`,
  sql`(${sql.placeholder("countries")} IS NULL OR ${inArray(shelters.country, jsonList("countries"))})`,
  sql`(${words} IS NULL OR EXISTS (SELECT 1 FROM ${shelterSearch} WHERE ${shelterSearch} MATCH ${words} AND ${shelterSearch.rowid} = ${shelters.id}))`,
);

type Order = "distance" | "id";

/** The first 10,000 shelters near the place from the cursor, in the order's order: the window a page examines. */
function windowOf(db: Drizzle, order: Order) {
  const near = nearShelters(db);
  const id = sql<number>`${near.shelterId}`;
  return db
    .select({ id: near.shelterId, unit: near.unit })
    .from(near)
    .where(
      order === "distance"
        ? sql`(${near.unit}, ${id}) > (${unit}, ${position})`
        : sql`${id} > ${position}`,
    )
    .orderBy(...(order === "distance" ? [asc(near.unit), asc(id)] : [asc(id)]))
    .limit(SEARCH_WINDOW)
    .as("windowed");
}

/** A page: the window's shelters that every finder keeps, and the window's last entry, where the next page starts if the window is full. */
function statementsFor(db: Drizzle, order: Order) {
  const window = windowOf(db, order);
  return {
    page: db
      .select({ ...shelterShape.columns, distanceKm: distanceKmOf(window.unit), unit: window.unit })
      .from(shelters)
      .innerJoin(window, eq(shelters.id, window.id))
      .where(everyFilter)
      .orderBy(
        ...(order === "distance" ? [asc(window.unit), asc(shelters.id)] : [asc(shelters.id)]),
      )
      .limit(sql.placeholder("limit"))
      .prepare(),
    window: db
      .select({ entries: sql<number>`count(*) OVER ()`, unit: window.unit, id: window.id })
      .from(window)
      .orderBy(...(order === "distance" ? [desc(window.unit), desc(window.id)] : [desc(window.id)]))
      .limit(1)
      .prepare(),
  };
}

/** The statements of each order, prepared once per database (exported so a test can read their plans). */
export const nearShelterFinders = preparedQueries((db: Drizzle) => ({
  distance: statementsFor(db, "distance"),
  id: statementsFor(db, "id"),
}));

interface NearShelterQuery {
  nearby: Nearby;
  ids?: readonly number[] | undefined;
  words?: string | undefined;
  countries?: readonly string[] | undefined;
  after: NearPosition | undefined;
  limit: number;
}

/** One page of the shelters near the place, and where the next starts when another may follow. */
export async function listSheltersNear(
  db: Database,
  query: NearShelterQuery,
): Promise<{ shelters: Shelter[]; next: NearPosition | undefined }> {
  const json = (list: readonly unknown[] | undefined) =>
    list === undefined ? null : JSON.stringify(list);
  const values = {
    ...placeValues(query.nearby),
    ids: json(query.ids),
    countries: json(query.countries),
    words: query.words ?? null,
    unit: query.after?.unit ?? -1,
    position: query.after?.id ?? 0,
    limit: query.limit + 1,
  };
  const statements = nearShelterFinders(db)[query.nearby.sort];
  const [rows, edges] = await guardStorage("D1", () =>
    runAll(db, [statements.page, statements.window], values),
  );
  const found = rows as (Parameters<typeof shelterShape.render>[0] & { unit: number })[];
  const listed = found.slice(0, query.limit);
  const last = listed.at(-1);
  const [edge] = edges as { entries: number; unit: number; id: number }[];
  const next =
    found.length > query.limit && last
      ? { unit: last.unit, id: last.id }
      : edge !== undefined && edge.entries === SEARCH_WINDOW
        ? { unit: edge.unit, id: edge.id }
        : undefined;
  return { shelters: listed.map(({ unit: _unit, ...row }) => shelterShape.render(row)), next };
}
