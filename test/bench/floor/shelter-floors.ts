import { keyOwner } from "../../../src/accounts/owner.ts";
import { prefixQuery } from "../../../src/api/search-words.ts";
import type { Database } from "../../../src/db/database.ts";
import { createShelter } from "../../../src/shelters/shelter-changes.queries.ts";
import { removeShelter } from "../../../src/shelters/shelter-edits.ts";
import { listShelters } from "../../../src/shelters/shelters.queries.ts";
import type { NewShelter } from "../../../src/shelters/shelters.schemas.ts";
import { SHELTER_REPLIES_PATH } from "../floor-paths.ts";
import { pageWithHeaders } from "./api-headers.ts";
import { changeOf, type Floor, type FloorContext, now, page, shopper } from "./floor-requests.ts";

/** The shelters' listing, its finders read as the API reads them. */
function listedShelters(c: FloorContext, db: Database) {
  const { limit, afterId } = page(c);
  const q = c.req.query("q");
  return listShelters(db, {
    limit,
    ids: c.req.queries("id")?.map(Number),
    words: q === undefined ? undefined : prefixQuery(q),
    countries: c.req.queries("country"),
    after: afterId === 0 ? undefined : afterId,
  });
}

/**
 * The shelters' floors, by method and path as floors.ts keys them: the
 * listing bare and sending the API's headers (at a path of its own), a
 * create's whole batch, and a deletion's read and batch.
 */
export const shelterFloors: Record<string, Floor> = {
  "GET /v1/shelters": async (c, { db }) => c.json((await listedShelters(c, db)).shelters, 200),
  [`GET ${SHELTER_REPLIES_PATH}`]: async (c, { db }) => {
    const { shelters, next } = await listedShelters(c, db);
    return pageWithHeaders(c, shelters, next);
  },
  "POST /v1/shelters": async (c, { db }) => {
    const owner = { owner: keyOwner({ hash: shopper }), now: now() };
    const outcome = await createShelter(db, await c.req.json<NewShelter>(), owner, undefined);
    return outcome.kind === "made" ? c.json(outcome.body, 201) : c.json(outcome, 409);
  },
  "DELETE /v1/shelters/:shelterId": async (c, services) => {
    const outcome = await removeShelter(services.db, changeOf(c, services, "shelterId"), now());
    return outcome.kind === "deleted" ? c.body(null, 204) : c.json(outcome, 409);
  },
};
