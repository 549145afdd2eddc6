import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { type Database, type Drizzle, preparedQueries, runOne } from "../db/database.ts";
import { shelterSearch } from "../db/search-tables.ts";
import { shelters } from "../db/shelters-table.ts";
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

function pageOf(db: Drizzle, order: "distance" | "id") {
  const near = nearShelters(db);
  return db
    .select({ ...shelterShape.columns, distanceKm: distanceKmOf(near.unit), unit: near.unit })
    .from(shelters)
    .innerJoin(near, eq(shelters.id, near.shelterId))
    .where(
      and(
        order === "distance"
          ? sql`(${near.unit}, ${shelters.id}) > (${unit}, ${position})`
          : gt(shelters.id, position),
        everyFilter,
      ),
    )
    .orderBy(...(order === "distance" ? [asc(near.unit), asc(shelters.id)] : [asc(shelters.id)]))
    .limit(sql.placeholder("limit"))
    .prepare();
}

/** The statements of each order, prepared once per database (exported so a test can read their plans). */
export const nearShelterFinders = preparedQueries((db: Drizzle) => ({
  distance: pageOf(db, "distance"),
  id: pageOf(db, "id"),
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
  const statement = nearShelterFinders(db)[query.nearby.sort];
  const rows = await guardStorage("D1", () => runOne(db, statement, values));
  const listed = rows.slice(0, query.limit);
  const last = listed.at(-1);
  return {
    shelters: listed.map(({ unit: _unit, ...row }) => shelterShape.render(row)),
    next: rows.length > query.limit && last ? { unit: last.unit, id: last.id } : undefined,
  };
}
