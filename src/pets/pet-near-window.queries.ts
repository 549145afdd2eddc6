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
 *
 * The shelters come first, in a statement of their own that reads each one
 * once, from the R*Tree alone; the Worker puts them in (unit, id) order and
 * binds them to the walk as the ring, a JSON array of `[id, unit]` pairs the
 * walk indexes by position, so it reads no shelter again and numbers,
 * sorts and stores none in temporary tables.
 */

/** The most animals examined of one shelter: a shelter with more leaves its unit to the next page. */
const ANIMALS_COUNTED = 200;

/** The id of a cursor after every animal of its unit. */
export const PAST_UNIT = Number.MAX_SAFE_INTEGER;

const constant = (value: number) => sql.raw(String(value));
const cursorUnit = sql.placeholder("unit");
const cursorId = sql.placeholder("position");

/** The shelters near the place from the cursor's unit on, in no order: the walk's ring, once sorted. */
export function ringOf(db: Drizzle) {
  const near = nearShelters(db);
  return db
    .select({ shelterId: near.shelterId, unit: near.unit })
    .from(near)
    .where(sql`(${near.unit}, ${constant(PAST_UNIT)}) > (${cursorUnit}, ${cursorId})`);
}

/** A shelter of the ring: its id and its distance in 100 m units. */
export interface RingShelter {
  shelterId: number;
  unit: number;
}

/** The ring's shelters in the walk's order: by unit, then id. */
export const inRingOrder = (shelters: readonly RingShelter[]): RingShelter[] =>
  shelters.toSorted((a, b) => a.unit - b.unit || a.shelterId - b.shelterId);

/** The ring as the walk binds it: its shelters, in ring order, as a JSON array of `[id, unit]`. */
export const ringValue = (ordered: readonly RingShelter[]): string =>
  JSON.stringify(ordered.map(({ shelterId, unit }) => [shelterId, unit]));

/** The ring's shelter at position `n` (from 0) and its unit; null past its end. */
const ringAt = (n: SQL, field: 0 | 1) =>
  sql`json_extract((SELECT ring FROM given), '$[' || (${n}) || '][${constant(field)}]')`;

/**
 * One shelter's live animals after the cursor, as the walk reads them in id
 * order: with no filter but the place's (`narrowed` false), only as many as
 * the page lists plus one, since every one is kept and none past the first
 * page's worth of each shelter can make the page (a unit lists its
 * shelters' animals merged by id); otherwise up to `ANIMALS_COUNTED + 1`.
 * The result is a JSON array: the animals read, those kept, and the ids of
 * those kept, which the page lists from without reading the others again.
 */
function countedOf(kept: SQL | undefined, shelterId: SQL, unit: SQL): SQL {
  const most = constant(ANIMALS_COUNTED + 1);
  const reading = sql`CASE WHEN ${sql.placeholder("narrowed")} THEN ${most} ELSE ${sql.placeholder("limit")} END`;
  return sql`(SELECT json_array(count(*), coalesce(sum(kept), 0), json_group_array(id) FILTER (WHERE kept))
    FROM (SELECT ${pets.id} AS id, ${kept ?? sql`1`} AS kept FROM ${pets}
      WHERE ${pets.shelterId} = ${shelterId} AND ${live}
        AND ${pets.id} > CASE WHEN ${unit} = ${cursorUnit} THEN ${cursorId} ELSE 0 END
      ORDER BY ${pets.id} LIMIT ${reading}))`;
}

/** A walk row's animals read and kept (see `countedOf`). */
const examinedOf = sql`(walk.animals ->> 0)`;
const keptOf = sql`(walk.animals ->> 1)`;

/**
 * The walk, as common table expressions: `given` the ring bound, `walk` one
 * row per shelter examined (its `n` the ring's position plus one), `ends`
 * the walk's last step and the first unit it did not see whole, `covered`
 * the last unit the page covers (`through`, null when it covers every unit
 * left), and `beyond` the ring's shelters up to it that the walk did not
 * reach (those of the page's first unit, when the walk could not see it
 * whole). Each is read once, so a shelter the walk examines costs the page
 * a few rows besides its animals. `kept` is every filter's condition on the
 * animal in scope. The walk starts with `examinedBefore` entries counted:
 * those the page examined before it (the nearest unit's merge, when that
 * could not fill the page), so the page as a whole stays within the window.
 */
function walkOf(kept: SQL | undefined): SQL {
  const keptSoFar = sql`walk.kept + ${keptOf}`;
  const nextShelter = ringAt(sql`walk.n`, 0);
  const nextUnit = ringAt(sql`walk.n`, 1);
  const past = constant(PAST_UNIT);
  const through = sql`coalesce((SELECT through FROM covered), ${past})`;
  return sql`WITH RECURSIVE
    given(ring) AS (SELECT ${sql.placeholder("ring")}),
    walk(n, unit, examined, kept, animals) AS (
      SELECT 0, -1, ${sql.placeholder("examinedBefore")}, 0, json_array(0, 0, json_array())
      UNION ALL
      SELECT walk.n + 1, ${nextUnit}, walk.examined + 1 + ${examinedOf}, ${keptSoFar},
        ${countedOf(kept, nextShelter, nextUnit)}
      FROM walk
      WHERE ${nextShelter} IS NOT NULL
        AND walk.examined + ${examinedOf} + ${constant(ANIMALS_COUNTED + 2)} <= ${constant(SEARCH_WINDOW)}
        AND NOT (${nextUnit} > walk.unit AND ${keptSoFar} >= ${sql.placeholder("limit")})),
    ends(last, cut) AS (
      SELECT max(n), min(CASE WHEN n > 0 AND ${examinedOf} > ${constant(ANIMALS_COUNTED)} THEN unit END)
      FROM walk),
    covered(through) AS (
      SELECT max(nullif(min(coalesce(cut, ${past}), coalesce(${ringAt(sql`last`, 1)}, ${past})), ${past}) - 1,
        ${ringAt(sql`0`, 1)})
      FROM ends),
    beyond(n, shelter_id, unit) AS (
      SELECT last, ${ringAt(sql`last`, 0)}, ${ringAt(sql`last`, 1)} FROM ends
      WHERE ${ringAt(sql`last`, 1)} <= ${through}
      UNION ALL
      SELECT n + 1, ${ringAt(sql`n + 1`, 0)}, ${ringAt(sql`n + 1`, 1)} FROM beyond
      WHERE ${ringAt(sql`n + 1`, 1)} <= ${through})`;
}

/**
 * The animals a page covers, each with its unit and the page's `through`, as
 * a subquery named `covered`: those the walk kept of each shelter it
 * examined (no animal read twice), and every live animal after the cursor
 * that `kept` keeps of the shelters the page covers beyond the walk. A last
 * entry with no animal, past every unit, carries `through` to a page that
 * lists none, so no page walks twice.
 */
export function coveredAnimals(db: Drizzle, kept: SQL | undefined) {
  return db
    .select({
      id: sql<number>`id`.as("covered_id"),
      unit: sql<number>`unit`.as("covered_unit"),
      through: sql<number | null>`through`.as("through"),
    })
    .from(
      sql`(${walkOf(kept)}
        SELECT walk.unit AS unit, found.value AS id, covered.through AS through
        FROM covered, walk, json_each(walk.animals, '$[2]') AS found
        WHERE walk.n > 0 AND walk.unit <= coalesce(covered.through, ${constant(PAST_UNIT)})
        UNION ALL
        SELECT beyond.unit, ${pets.id}, covered.through
        FROM covered, beyond CROSS JOIN ${pets}
        WHERE ${pets.shelterId} = beyond.shelter_id AND ${live}
          AND ${pets.id} > CASE WHEN beyond.unit = ${cursorUnit} THEN ${cursorId} ELSE 0 END
          AND ${kept ?? sql`1`}
        UNION ALL
        SELECT ${constant(PAST_UNIT)}, NULL, covered.through FROM covered)`,
    )
    .as("covered");
}
