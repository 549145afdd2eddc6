import { type SQL, sql } from "drizzle-orm";
import type { Drizzle } from "../db/database.ts";
import { pets } from "../db/schema.ts";
import { nearShelters } from "../shelters/near.queries.ts";
import { SEARCH_WINDOW } from "./pet-finders.ts";
import { live } from "./pets.queries.ts";

/**
 * The window a page of animals by distance examines, shelters and animals
 * counted. Animals are listed by distance unit then id, so their order
 * interleaves the shelters of one unit: a page that ends before it is full
 * can only end between whole units. The window walks the shelters near the
 * place from the cursor's unit in (unit, id) order, examining each shelter
 * and its live animals after the cursor (at most `ANIMALS_COUNTED + 1` of
 * them, each checked against every filter; with no filter but the place's,
 * no more than the page lists), and takes the next shelter only while that
 * cannot carry it past 10,000 entries. It stops sooner, at the end of a
 * unit, once the units it walked hold more animals after the cursor that
 * every filter keeps than the page lists. The page covers every unit before
 * the first one the walk did not see whole (a shelter it did not reach, or
 * one with more animals after the cursor than it counts), yet always its
 * first unit, so it never stands still.
 */

/** The most animals examined of one shelter: a shelter with more leaves its unit to the next page. */
const ANIMALS_COUNTED = 200;

/** The id of a cursor after every animal of its unit. */
export const PAST_UNIT = Number.MAX_SAFE_INTEGER;

/** A step of the walk packs its counts in base `PACKED` (more than `ANIMALS_COUNTED + 1`). */
const PACKED = 256;

const constant = (value: number) => sql.raw(String(value));
const cursorUnit = sql.placeholder("unit");
const cursorId = sql.placeholder("position");

/** The shelters near the place from the cursor's unit on, numbered in (unit, id) order. */
function ringOf(db: Drizzle) {
  const near = nearShelters(db);
  return db
    .select({
      n: sql<number>`row_number() OVER (ORDER BY ${near.unit}, ${near.shelterId})`.as("ring_n"),
      unit: near.unit,
      shelterId: near.shelterId,
    })
    .from(near)
    .where(sql`(${near.unit}, ${constant(PAST_UNIT)}) > (${cursorUnit}, ${cursorId})`)
    .as("numbered");
}

/**
 * One shelter's live animals after the cursor, as the walk reads them in id
 * order: with no filter but the place's (`narrowed` false), only as many as
 * the page lists plus one, since every one is kept; otherwise up to
 * `ANIMALS_COUNTED + 1`. The result packs the animals read, `PACKED` times
 * those kept, and `PACKED²` times the last id read when the read stopped at
 * the page's size (0 otherwise): the page then reads no further in this
 * shelter, as a unit lists its shelters' animals merged by id and none past
 * the first page's worth of each can make the page.
 */
function countedOf(kept: SQL | undefined): SQL {
  const most = constant(ANIMALS_COUNTED + 1);
  const reading = sql`CASE WHEN ${sql.placeholder("narrowed")} THEN ${most} ELSE ${sql.placeholder("limit")} END`;
  return sql`(SELECT count(*) + ${constant(PACKED)} * coalesce(sum(kept), 0)
      + ${constant(PACKED * PACKED)} * CASE WHEN count(*) = ${reading} AND count(*) < ${most} THEN max(id) ELSE 0 END
    FROM (SELECT ${pets.id} AS id, ${kept ?? sql`1`} AS kept FROM ${pets}
      WHERE ${pets.shelterId} = ring.shelter_id AND ${live}
        AND ${pets.id} > CASE WHEN ring.unit = ${cursorUnit} THEN ${cursorId} ELSE 0 END
      ORDER BY ${pets.id} LIMIT ${reading}))`;
}

/**
 * The walk, as common table expressions: `ring` the shelters from the
 * cursor's unit, `walk` one row per shelter examined, and `covered` the
 * last unit the page covers (`through`, null when it covers every unit
 * left). `kept` is every filter's condition on the animal in scope.
 */
function walkOf(db: Drizzle, kept: SQL | undefined): SQL {
  const examined = sql`walk.animals % ${constant(PACKED)}`;
  const listed = sql`walk.kept + walk.animals / ${constant(PACKED)} % ${constant(PACKED)}`;
  return sql`WITH RECURSIVE
    ring(n, unit, shelter_id) AS MATERIALIZED (SELECT * FROM ${ringOf(db)}),
    walk(n, unit, examined, kept, animals) AS (
      SELECT 0, -1, 0, 0, 0
      UNION ALL
      SELECT ring.n, ring.unit, walk.examined + 1 + ${examined}, ${listed}, ${countedOf(kept)}
      FROM walk JOIN ring ON ring.n = walk.n + 1
      WHERE walk.examined + ${examined} + ${constant(ANIMALS_COUNTED + 2)} <= ${constant(SEARCH_WINDOW)}
        AND NOT (ring.unit > walk.unit AND ${listed} >= ${sql.placeholder("limit")})),
    cut(unit) AS (
      SELECT min(unit) FROM walk WHERE n > 0 AND animals % ${constant(PACKED)} > ${constant(ANIMALS_COUNTED)}
      UNION ALL
      SELECT unit FROM ring WHERE n = (SELECT max(n) FROM walk) + 1),
    covered(through) AS (
      SELECT max((SELECT min(unit) FROM cut) - 1, (SELECT unit FROM ring WHERE n = 1)))`;
}

/**
 * The shelters a page covers, each with its unit, the page's `through`, and
 * `upto`: the last id the page may list of it (0 for no bound), as a subquery
 * named `covered`.
 */
export function coveredShelters(db: Drizzle, kept: SQL | undefined) {
  return db
    .select({
      shelterId: sql<number>`shelter_id`.as("covered_shelter_id"),
      unit: sql<number>`unit`.as("covered_unit"),
      upto: sql<number>`upto`.as("covered_upto"),
      through: sql<number | null>`through`.as("through"),
    })
    .from(
      sql`(${walkOf(db, kept)}
        SELECT ring.shelter_id, ring.unit, covered.through,
          coalesce(walk.animals, 0) / ${constant(PACKED * PACKED)} AS upto
        FROM covered, ring LEFT JOIN walk ON walk.n = ring.n
        WHERE ring.unit <= coalesce(covered.through, ${constant(PAST_UNIT)}))`,
    )
    .as("covered");
}

/** The last unit a page covers, for a page that lists no animal to carry it. */
export function coveredThrough(db: Drizzle, kept: SQL | undefined) {
  return db
    .select({ through: sql<number | null>`through`.as("through") })
    .from(sql`(${walkOf(db, kept)} SELECT through FROM covered)`);
}
