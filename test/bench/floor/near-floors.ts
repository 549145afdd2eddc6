import type { Context } from "hono";
import type { Database } from "../../../src/db/database.ts";
import type { PetFinders } from "../../../src/pets/pet-finders.ts";
import { listPetsNear } from "../../../src/pets/pet-listing-near.queries.ts";
import { nearbyOf } from "../../../src/shelters/near.schemas.ts";
import { decodeNearCursor, encodeNearCursor } from "../../../src/shelters/near-cursor.ts";

/** `near`, `within` and `sort` as the API reads them; undefined without `near`. */
function nearbyIn(c: Context) {
  const near = c.req.query("near");
  if (near === undefined) return undefined;
  const [latitude, longitude] = near.split(",").map(Number);
  const within = c.req.query("within");
  return nearbyOf({
    near: { latitude: latitude ?? 0, longitude: longitude ?? 0 },
    within: within === undefined ? undefined : Number(within),
    sort: c.req.query("sort") as "distance" | "id" | undefined,
  });
}

/**
 * The animals near a place, the page the API lists for `near` alone or with
 * other finders, and the cursor of the next page; undefined when the
 * request has no `near`.
 */
export async function listedPetsNear(c: Context, db: Database, finders: PetFinders) {
  const nearby = nearbyIn(c);
  if (nearby === undefined) return undefined;
  const cursor = c.req.query("cursor");
  const listed = await listPetsNear(db, {
    ...finders,
    nearby,
    direction: "asc",
    after: cursor === undefined ? undefined : decodeNearCursor(cursor, nearby, "asc"),
    limit: Number(c.req.query("limit") ?? 20),
  });
  return {
    pets: listed.pets,
    next: listed.next && { cursor: encodeNearCursor(nearby, "asc", listed.next) },
  };
}
