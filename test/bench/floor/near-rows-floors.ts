import { EARTH_RADIUS_KM } from "../../../src/shelters/near.queries.ts";
import {
  NEAR_ROWS_READ_PATH,
  NEAR_STRAIGHTFORWARD_PATH,
  ROWS_READ_HEADER,
} from "../floor-paths.ts";
import type { Floor } from "./floor-requests.ts";
import { listedPetsNear } from "./near-floors.ts";
import { countingRows } from "./rows-read.ts";

/**
 * The page of animals near a place, the API's way and the straightforward
 * way, each answering how many rows D1 read for it: what D1 bills, which
 * the scale run compares.
 */

/**
 * The straightforward page: the great-circle distance to every live
 * shelter (no R*Tree), those within reach, then their live animals, in
 * 100 m units then id. The CTE is materialized so SQLite computes the
 * distances over the shelters first, as the straightforward way does.
 */
const STRAIGHTFORWARD_SQL = `WITH near AS MATERIALIZED (
  SELECT id, distance FROM (
    SELECT id, 2 * ${EARTH_RADIUS_KM} * asin(min(1, sqrt(
      pow(sin((radians(latitude) - radians(?1)) / 2), 2)
      + cos(radians(?1)) * cos(radians(latitude)) * pow(sin((radians(longitude) - radians(?2)) / 2), 2)))) AS distance
    FROM shelters WHERE deleted_at IS NULL)
  WHERE distance <= ?3)
SELECT pets.*, CAST(round(near.distance * 10) AS INTEGER) AS unit,
  CAST(round(near.distance * 10) AS INTEGER) / 10.0 AS distance_km
FROM near JOIN pets ON pets.shelter_id = near.id
WHERE pets.deleted_at IS NULL
ORDER BY unit, pets.id
LIMIT ?4`;

/** The two pages near a place, by method and path as floors.ts keys them. */
export const nearRowsFloors: Record<string, Floor> = {
  [`GET ${NEAR_ROWS_READ_PATH}`]: async (c, { db }) => {
    const { db: counting, counted } = countingRows(db);
    const listed = await listedPetsNear(c, counting, {});
    return c.json(listed?.pets ?? [], 200, { [ROWS_READ_HEADER]: String(counted.rowsRead) });
  },
  [`GET ${NEAR_STRAIGHTFORWARD_PATH}`]: async (c, { db }) => {
    const [latitude, longitude] = (c.req.query("near") ?? "").split(",").map(Number);
    const within = Number(c.req.query("within") ?? 50);
    const limit = Number(c.req.query("limit") ?? 20);
    const result = await db.d1
      .prepare(STRAIGHTFORWARD_SQL)
      .bind(latitude, longitude, within, limit)
      .all();
    return c.json(result.results, 200, {
      [ROWS_READ_HEADER]: String(result.meta.rows_read ?? 0),
    });
  },
};
