import { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import type { Field } from "../db/shape.ts";

/**
 * How far a listed animal or shelter lies from the place a listing was
 * asked about. Only a listing with `near` measures it (see
 * `near.queries.ts`); every other read, and every event and stored reply,
 * says `null`.
 */

export const distanceKmSchema = z.number().min(0).nullable().openapi({
  description:
    "Great-circle distance in kilometres from the place a listing asked about, rounded to 0.1 km; `null` outside such a listing (and in events and replays).",
  example: null,
});

/** The `distanceKm` of a shape: null wherever the record is read or rendered outside a listing with `near`. */
export const unmeasuredDistance: Field<SQL.Aliased<number | null>, number | null> = {
  select: sql<number | null>`NULL`.as("distance_km"),
  render: (read) => read,
  json: sql`NULL`,
  optional: false,
};
