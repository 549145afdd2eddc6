import { asc, desc, eq, gt, lt, type SQL, sql } from "drizzle-orm";
import type { Drizzle } from "../db/database.ts";
import { shelterPlaces } from "../db/places-table.ts";
import { pets } from "../db/schema.ts";
import { distanceKmOf, nearShelters, placeUnit, placeWithin } from "../shelters/near.queries.ts";
import { SEARCH_WINDOW } from "./pet-finders.ts";
import { live, petShape } from "./pets.queries.ts";

/**
 * The window a page of animals near a place in id order examines, shelters
 * and animals counted. Reading the circle's animals in id order means
 * reading them all, so a page first counts the circle's shelters and, up to
 * half the room they leave, its live animals after the cursor. When those
 * are all, the page reads them as they are. Otherwise the circle is crowded:
 * the page reads the live animals after the cursor by id, whatever their
 * shelter, as many as the window has room for after the shelters and that
 * count, keeps those whose shelter is in the circle (and that every filter
 * keeps), and the next page starts after the last one read.
 */

/** The order of a listing by id. */
export type IdOrder = "idAsc" | "idDesc";

const position = sql.placeholder("position");

/** The animals after the cursor in the order's direction. */
export const after = (order: IdOrder) =>
  order === "idAsc" ? gt(pets.id, position) : lt(pets.id, position);
/** The animals in the order's direction. */
export const inIdOrder = (order: IdOrder) => (order === "idAsc" ? asc(pets.id) : desc(pets.id));

/**
 * How many shelters the circle holds, the room it leaves for counting its
 * animals (half what the window has left after them), and its live animals
 * after the cursor, counted up to one past that room.
 */
export function circleCount(db: Drizzle, order: IdOrder) {
  return db
    .select({
      shelters: sql<number>`shelters`.as("shelters"),
      room: sql<number>`room`.as("room"),
      animals: sql<number>`animals`.as("animals"),
    })
    .from(
      sql`(WITH circle AS MATERIALIZED (SELECT * FROM ${nearShelters(db)}),
        room(animals) AS (SELECT max(0, (${sql.raw(String(SEARCH_WINDOW))} - count(*)) / 2) FROM circle)
      SELECT (SELECT count(*) FROM circle) AS shelters, (SELECT animals FROM room) AS room,
        (SELECT count(*) FROM (SELECT 1 FROM circle CROSS JOIN ${pets}
          WHERE ${pets.shelterId} = circle.near_shelter_id AND ${live} AND ${after(order)}
          LIMIT (SELECT animals FROM room) + 1)) AS animals)`,
    );
}

/**
 * What a crowded circle's page has room to read by id, once its shelters
 * and its count are examined; never none, so a page always moves on (a
 * circle of 10,000 shelters or more alone fills the window).
 */
export const scanRoom = ({ shelters, room }: { shelters: number; room: number }) =>
  Math.max(1, SEARCH_WINDOW - shelters - (room + 1));

/**
 * The statements of a crowded circle's page: the live animals read by id
 * from the cursor (`scan` of them), those in the circle that `kept` keeps
 * as the API shows them, and how many were read with the last one.
 */
export function scannedAnimals(db: Drizzle, order: IdOrder, kept: SQL | undefined) {
  const read = db
    .select({ id: sql<number>`${pets.id}`.as("read_id") })
    .from(pets)
    .where(sql`${live} AND ${after(order)}`)
    .orderBy(inIdOrder(order))
    .limit(sql.placeholder("scan"))
    .as("read");
  return {
    page: db
      .select({ ...petShape.columns, distanceKm: distanceKmOf(placeUnit), unit: placeUnit })
      .from(read)
      .crossJoin(pets)
      // Each animal's place by its shelter's id: the R*Tree holds live shelters alone.
      .innerJoin(shelterPlaces, eq(shelterPlaces.id, pets.shelterId))
      .where(sql`${pets.id} = ${read.id} AND ${placeWithin} AND ${kept ?? sql`1`}`)
      .orderBy(inIdOrder(order))
      .limit(sql.placeholder("limit")),
    edge: db
      .select({
        entries: sql<number>`count(*)`,
        id: order === "idAsc" ? sql<number>`max(${read.id})` : sql<number>`min(${read.id})`,
      })
      .from(read),
  };
}
