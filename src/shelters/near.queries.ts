import { type SQL, sql } from "drizzle-orm";
import type { Drizzle } from "../db/database.ts";
import { shelterPlaces } from "../db/places-table.ts";
import type { Nearby } from "./near.schemas.ts";

/**
 * The shelters near a place, as SQL both listings build on. The R*Tree's
 * box (split at ±180°, widened to every longitude when the circle reaches a
 * pole) only selects candidates; each candidate's great-circle distance is
 * then computed from the shelter's own coordinates (which the R*Tree keeps
 * exactly beside the box) by haversine on a sphere of radius 6,371.0088 km,
 * and those farther than `within` are left out.
 * Distances are ordered and shown in whole 100 m units.
 */

/** The mean Earth radius, in kilometres, that distances are measured on. */
export const EARTH_RADIUS_KM = 6371.0088;

/** Degrees added to each side of the box, so rounding in its arithmetic never leaves a shelter out. */
const MARGIN_DEGREES = 1e-6;
/** A longitude range no place falls in, for a box that needs only one. */
const NO_RANGE = { west: 181, east: -181 };

const toRadians = (degrees: number) => (degrees * Math.PI) / 180;
const toDegrees = (radians: number) => (radians * 180) / Math.PI;

/** The box around the circle of `withinKm` about `place`: its latitudes and up to two longitude ranges. */
function boxAround({ place, withinKm }: Pick<Nearby, "place" | "withinKm">) {
  const reach = withinKm / EARTH_RADIUS_KM;
  const degrees = toDegrees(reach) + MARGIN_DEGREES;
  const south = place.latitude - degrees;
  const north = place.latitude + degrees;
  if (south <= -90 || north >= 90) {
    return {
      south: Math.max(south, -90),
      north: Math.min(north, 90),
      first: { west: -180, east: 180 },
      second: NO_RANGE,
    };
  }
  // The circle's widest longitude, where a meridian touches it.
  const spread =
    toDegrees(Math.asin(Math.sin(reach) / Math.cos(toRadians(place.latitude)))) + MARGIN_DEGREES;
  const west = place.longitude - spread;
  const east = place.longitude + spread;
  if (west < -180) {
    return { south, north, first: { west: west + 360, east: 180 }, second: { west: -180, east } };
  }
  if (east > 180) {
    return { south, north, first: { west, east: 180 }, second: { west: -180, east: east - 360 } };
  }
  return { south, north, first: { west, east }, second: NO_RANGE };
}

/** What statements built on `nearShelters` bind for a listing's place. */
export function placeValues(nearby: Nearby) {
  const box = boxAround(nearby);
  return {
    nearLatitude: nearby.place.latitude,
    nearLongitude: nearby.place.longitude,
    withinKm: nearby.withinKm,
    south: box.south,
    north: box.north,
    west1: box.first.west,
    east1: box.first.east,
    west2: box.second.west,
    east2: box.second.east,
  };
}

const bound = (name: keyof ReturnType<typeof placeValues>) => sql.placeholder(name);

/** The great-circle distance in kilometres from the place bound to the point at `latitude`, `longitude`. */
const distanceTo = (latitude: SQL, longitude: SQL) =>
  sql<number>`(2 * ${sql.raw(String(EARTH_RADIUS_KM))} * asin(min(1, sqrt(
  pow(sin((radians(${latitude}) - radians(${bound("nearLatitude")})) / 2), 2)
  + cos(radians(${bound("nearLatitude")})) * cos(radians(${latitude}))
  * pow(sin((radians(${longitude}) - radians(${bound("nearLongitude")})) / 2), 2)))))`;

/** A distance in whole 100 m units, as `distanceKm` shows it and listings order by. */
const unitOf = (km: SQL<number>) => sql<number>`CAST(round(${km} * 10) AS INTEGER)`;

/** The places whose box meets one longitude range of the box bound, with their exact coordinates. */
const placesIn = (west: "west1" | "west2", east: "east1" | "east2") =>
  sql`SELECT ${shelterPlaces.id}, ${shelterPlaces.latitude}, ${shelterPlaces.longitude} FROM ${shelterPlaces}
    WHERE ${shelterPlaces.maxLat} >= ${bound("south")} AND ${shelterPlaces.minLat} <= ${bound("north")}
      AND ${shelterPlaces.maxLon} >= ${bound(west)} AND ${shelterPlaces.minLon} <= ${bound(east)}`;

/** The place in scope's distance from the place bound, in 100 m units, as a column named `near_unit`. */
export const placeUnit = unitOf(
  distanceTo(sql`${shelterPlaces.latitude}`, sql`${shelterPlaces.longitude}`),
).as("near_unit");

/** True when the place in scope lies within the distance bound of the place bound. */
export const placeWithin = sql`${distanceTo(sql`${shelterPlaces.latitude}`, sql`${shelterPlaces.longitude}`)} <= ${bound("withinKm")}`;

/**
 * The live shelters within the distance bound of the place bound, each with
 * its distance in 100 m units (`unit`), as a subquery named `near`. Only the
 * R*Tree is read: it holds live shelters alone, each with its own
 * coordinates. The two longitude ranges never share a place (a point's box
 * cannot reach both ends of the longitudes), so no place is found twice.
 */
export function nearShelters(db: Drizzle) {
  // The offset keeps SQLite from merging the union into the query around it, which would
  // then run that whole query once for each longitude range.
  const candidates = sql`(${placesIn("west1", "east1")} UNION ALL ${placesIn("west2", "east2")}
    LIMIT -1 OFFSET 0) AS candidate`;
  const distance = distanceTo(sql`candidate.latitude`, sql`candidate.longitude`);
  return db
    .select({
      // Names of their own: the outer query writes them unqualified beside the animals' columns.
      shelterId: sql<number>`candidate.id`.as("near_shelter_id"),
      unit: unitOf(distance).as("near_unit"),
    })
    .from(candidates)
    .where(sql`${distance} <= ${bound("withinKm")}`)
    .as("near");
}

/** A listed item's `distanceKm`: its distance in 100 m units, as kilometres. */
export const distanceKmOf = (unit: SQL<number> | SQL.Aliased<number>) =>
  sql<number | null>`${unit} / 10.0`.as("distance_km");
