import { and, eq, getTableColumns, getTableName, gt, type SQL, sql } from "drizzle-orm";
import { type SelectedFields, unionAll } from "drizzle-orm/sqlite-core";
import type { Drizzle } from "../db/database.ts";
import { pets } from "../db/schema.ts";
import type { RingShelter } from "./pet-near-window.queries.ts";
import { live, petShape } from "./pets.queries.ts";

/**
 * A page by distance, when the nearest unit's shelters alone fill it: those
 * shelters' live animals after the cursor, merged by id, with every filter
 * checked on each. Each shelter is one arm of a compound SELECT ordered by
 * id, which SQLite merges as it reads, each arm walking its shelter's index
 * only as far as the page takes: a page of `limit` from five shelters
 * examines about `limit` animals over the share the filters keep, where the
 * walk examines each shelter's animals whole, then reads those it kept
 * again. D1 allows five terms in a compound SELECT, so a unit of at most
 * five shelters is merged this way; an arm with no shelter bound reads
 * nothing.
 */

/** The most shelters one unit may hold for its animals to be merged by id. */
export const MERGED_SHELTERS = 5;

/**
 * The most animals the merge examines: a page it does not fill is made by
 * the walk, whose window then has this much less room (see `pet-near-window.queries.ts`).
 */
export const MERGE_EXAMINED = 1_000;

const unit = sql.placeholder("nearestUnit");

/** As the API shows an animal, with the unit's distance. */
const shown = {
  ...petShape.columns,
  distanceKm: sql<number | null>`${unit} / 10.0`.as("distance_km"),
  unit: sql<number>`${unit}`.as("near_unit"),
};

/** One shelter's live animals after the cursor, in id order by its index. */
function arm<C extends SelectedFields>(db: Drizzle, k: number, columns: C) {
  return db
    .select(columns)
    .from(pets)
    .where(
      and(
        eq(pets.shelterId, sql.placeholder(`nearest${k}`)),
        live,
        gt(pets.id, sql.placeholder("nearestAfter")),
      ),
    );
}

/** The shelters' arms, two at least. */
function arms<C extends SelectedFields>(db: Drizzle, columns: C) {
  const [first, second, ...rest] = Array.from({ length: MERGED_SHELTERS }, (_, k) =>
    arm(db, k, columns),
  );
  if (!first || !second) throw new Error("a merge takes two arms at least");
  return [first, second, ...rest] as const;
}

/** The statement with no filter but the place's: the nearest unit's animals after the cursor, merged by id, `limit` of them. */
export function nearestUnitPage(db: Drizzle) {
  return unionAll(...arms(db, shown))
    .orderBy(sql`id`)
    .limit(sql.placeholder("limit"));
}

/**
 * The statement with other filters too: `limit` of the merged animals that
 * `kept` (every other filter, bound once) keeps, checked on the merge as it
 * goes. The merge examines at most `MERGE_EXAMINED` animals, whatever the
 * filters keep; that bound also keeps SQLite from copying the filters into
 * each arm, which would then sort its own rows before the merge.
 */
export function nearestUnitFilteredPage(db: Drizzle, kept: SQL | undefined) {
  // Named as the table, so the shape's columns and the filters read the merge's rows.
  const merged = unionAll(...arms(db, getTableColumns(pets)))
    .orderBy(sql`id`)
    .limit(MERGE_EXAMINED)
    .as(getTableName(pets));
  return db.select(shown).from(merged).where(kept).limit(sql.placeholder("limit"));
}

/**
 * What the statement binds for the ring's first unit, or undefined when that
 * unit holds more shelters than it merges. `after` is the cursor's id when
 * the cursor stopped inside that unit.
 */
export function nearestValues(ring: readonly RingShelter[], after: { unit: number; id: number }) {
  const [nearest] = ring;
  if (nearest === undefined) return undefined;
  const shelters = ring.filter((shelter) => shelter.unit === nearest.unit);
  if (shelters.length > MERGED_SHELTERS) return undefined;
  return {
    nearestUnit: nearest.unit,
    nearestAfter: nearest.unit === after.unit ? after.id : 0,
    ...Object.fromEntries(
      Array.from({ length: MERGED_SHELTERS }, (_, k) => [
        `nearest${k}`,
        shelters[k]?.shelterId ?? null,
      ]),
    ),
  };
}
