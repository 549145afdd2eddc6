import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink } from "../api/pagination.ts";
import type { RouteHandlers } from "../api/route-router.ts";
import { listEvents } from "./events.queries.ts";
import type { eventRoutes } from "./events.routes.ts";
import { kindsOf } from "./events.schemas.ts";

/** The event feed's handlers, one per route of the table. */
export const eventHandlers = {
  listEvents: async (c) => {
    const { limit, type, cursor } = c.req.valid("query");
    const page = await listEvents(c.var.services.db, {
      apiKeyHash: c.var.apiKey.hash,
      types: type === undefined ? undefined : kindsOf(type),
      afterSeq: cursor === undefined ? 0 : decodeCursor(cursor),
      limit,
      now: Date.now(),
    });
    if (page.hasMore && page.lastSeq !== undefined) {
      c.header("Link", nextPageLink(c.req.url, { limit, type }, page.lastSeq));
    }
    return c.json(page.events, 200);
  },
} satisfies RouteHandlers<typeof eventRoutes>;
