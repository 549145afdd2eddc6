import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink, pageReply } from "../api/pagination.ts";
import type { RouteHandlers } from "../api/route-router.ts";
import { ApiError } from "../errors.ts";
import { prefixQuery } from "../pets/search-words.ts";
import { findShelter, listShelters } from "./shelters.queries.ts";
import type { shelterRoutes } from "./shelters.routes.ts";
import { SHELTER_NOT_FOUND } from "./shelters.schemas.ts";

/** The shelters' handlers, one per route of the table. */
export const shelterHandlers = {
  listShelters: async (c) => {
    const { limit, id, q, country, cursor } = c.req.valid("query");
    const page = await listShelters(c.get("services").db, {
      limit,
      ids: id,
      words: q === undefined ? undefined : prefixQuery(q),
      countries: country,
      after: cursor === undefined ? undefined : decodeCursor(cursor),
    });
    const next =
      page.next === undefined
        ? undefined
        : nextPageLink(c.req.url, { limit, id, q, country }, page.next);
    return pageReply(c, page.shelters, next);
  },

  getShelter: async (c) => {
    const shelter = await findShelter(c.get("services").db, c.req.valid("param").shelterId);
    if (!shelter) throw new ApiError("not_found", SHELTER_NOT_FOUND);
    c.header("ETag", shelter.etag);
    return c.json(shelter, 200);
  },
} satisfies RouteHandlers<typeof shelterRoutes>;
