import { and, eq, gt, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/sqlite-core";
import type { Drizzle } from "../db/database.ts";
import { pets } from "../db/schema.ts";
import type { RingShelter } from "./pet-near-window.queries.ts";
import { live, petShape } from "./pets.queries.ts";

/**
 * The first page by distance with no filter but the place's, when the
 * nearest unit's shelters alone fill it: those shelters' live animals after
 * the cursor, merged by id. Each shelter is one arm of a compound SELECT
 * ordered by id, which SQLite merges as it reads, each arm walking its
 * shelter's index only as far as the page takes (and one more): a page of
 * `limit` from five shelters reads about `limit + 5` animals, where the walk
 * reads each shelter's first page whole, then reads them again and sorts
 * them. D1 allows five terms in a compound SELECT, so a unit of at most five
 * shelters is merged this way; an arm with no shelter bound reads nothing.
 */

/** The most shelters one unit may hold for its animals to be merged by id. */
export const MERGED_SHELTERS = 5;

const unit = sql.placeholder("nearestUnit");

/** One shelter's live animals after the cursor, as the API shows them, with the unit's distance. */
function arm(db: Drizzle, k: number) {
  return db
    .select({
      ...petShape.columns,
      distanceKm: sql<number | null>`${unit} / 10.0`.as("distance_km"),
      unit: sql<number>`${unit}`.as("near_unit"),
    })
    .from(pets)
    .where(
      and(
        eq(pets.shelterId, sql.placeholder(`nearest${k}`)),
        live,
        gt(pets.id, sql.placeholder("nearestAfter")),
      ),
    );
}

/** The statement: the nearest unit's animals after the cursor, merged by id, `limit` of them. */
export function nearestUnitPage(db: Drizzle) {
  const [first, second, ...rest] = Array.from({ length: MERGED_SHELTERS }, (_, k) => arm(db, k));
  if (!first || !second) throw new Error("a merge takes two arms at least");
  return unionAll(first, second, ...rest)
    .orderBy(sql`id`)
    .limit(sql.placeholder("limit"));
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
