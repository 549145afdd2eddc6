import { z } from "@hono/zod-openapi";

/**
 * The place a listing asks about and how it is ordered: `near` (a latitude
 * and longitude in decimal degrees), `within` (kilometres, 1 to 1,000,
 * default 50) and `sort` (`distance`, the default with `near`, or `id`).
 * The same parameters, stated alike, serve the animals' and the shelters'
 * listings, so the document states them once.
 */

/** How far a `near` listing reaches when `within` is not given, in kilometres. */
const DEFAULT_WITHIN_KM = 50;

/** A place in decimal degrees (WGS 84). */
interface Place {
  latitude: number;
  longitude: number;
}

const DEGREES = /^(-?\d{1,3}(?:\.\d{1,15})?),(-?\d{1,3}(?:\.\d{1,15})?)$/;

const nearParameter = z
  .string()
  .regex(DEGREES, "Must be <latitude>,<longitude> in decimal degrees")
  .transform((text): Place => {
    const [, latitude, longitude] = DEGREES.exec(text) ?? [];
    return { latitude: Number(latitude), longitude: Number(longitude) };
  })
  .refine(
    ({ latitude, longitude }) => Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180,
    "The latitude must be from -90 to 90 and the longitude from -180 to 180",
  )
  .optional()
  .openapi({
    param: {
      name: "near",
      in: "query",
      description:
        "`<latitude>,<longitude>` in decimal degrees (beta): only those whose shelter lies within `within` km, with `distanceKm`. No geocoding: send coordinates.",
    },
    example: "51.5072,-0.1276",
  });

const withinParameter = z
  .string()
  .regex(/^\d{1,4}(?:\.\d{1,6})?$/, "Must be a number of kilometres")
  .transform(Number)
  .refine((km) => km >= 1 && km <= 1000, "Must be from 1 to 1000")
  .optional()
  .openapi({
    param: {
      name: "within",
      in: "query",
      description: `Great-circle km from \`near\` (beta; 1–1000, default ${DEFAULT_WITHIN_KM}); only with \`near\`.`,
    },
    example: "50",
  });

const sortParameter = z
  .enum(["distance", "id"])
  .optional()
  .openapi({
    param: {
      name: "sort",
      in: "query",
      description:
        "`distance` (default with `near`, which it needs; beta): nearest first in whole 100 m units, ties by `id`; not with `direction=desc`. `id`: by id. With `near` a page may hold fewer than `limit`, with a `Link`.",
    },
    example: "distance",
  });

/** The place parameters, as each listing's query declares them. */
export const placeFinders = {
  near: nearParameter,
  within: withinParameter,
  sort: sortParameter,
};

interface PlaceQuery {
  near?: Place | undefined;
  within?: number | undefined;
  sort?: "distance" | "id" | undefined;
  direction?: "asc" | "desc" | undefined;
}

/** Refuses `within` or `sort=distance` without `near`, and a distance order newest first. */
export function placeRules(query: PlaceQuery, ctx: z.RefinementCtx) {
  if (query.near === undefined && query.within !== undefined) {
    ctx.addIssue({ code: "custom", path: ["within"], message: "Only with near" });
  }
  if (query.near === undefined && query.sort === "distance") {
    ctx.addIssue({ code: "custom", path: ["sort"], message: "sort=distance needs near" });
  }
  if (query.near !== undefined && query.sort !== "id" && query.direction === "desc") {
    ctx.addIssue({
      code: "custom",
      path: ["direction"],
      message: "A listing by distance runs nearest first only",
    });
  }
}

/** What a listing with a place asks: where, how far, and in which order. */
export interface Nearby {
  place: Place;
  withinKm: number;
  sort: "distance" | "id";
}

/** The place a listing asks about, with its defaults; undefined without `near`. */
export function nearbyOf(query: PlaceQuery): Nearby | undefined {
  if (query.near === undefined) return undefined;
  return {
    place: query.near,
    withinKm: query.within ?? DEFAULT_WITHIN_KM,
    sort: query.sort ?? "distance",
  };
}

/** The place parameters as a next link repeats them: those given. */
export function placeParameters(query: Omit<PlaceQuery, "direction">) {
  return {
    near: query.near && `${query.near.latitude},${query.near.longitude}`,
    within: query.within,
    sort: query.sort,
  };
}
