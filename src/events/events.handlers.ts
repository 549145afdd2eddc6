import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink, pageReply } from "../api/pagination.ts";
import type { RouteHandlers } from "../api/route-handlers.ts";
import { EVENT_TYPES } from "../db/schema.ts";
import { holdsScope, type Scope } from "../scopes.ts";
import { listEvents } from "./events.queries.ts";
import type { eventRoutes } from "./events.routes.ts";
import { type EventType, type EventTypeSelector, kindsOf } from "./events.schemas.ts";

/**
 * The kinds to list: those asked for (undefined: all), less the order
 * events for a key that may not read orders, which sees none of them.
 */
function visibleKinds(
  type: EventTypeSelector | undefined,
  scopes: readonly Scope[],
): EventType[] | undefined {
  if (holdsScope(scopes, "orders:read")) return type === undefined ? undefined : kindsOf(type);
  const asked = type === undefined ? EVENT_TYPES : kindsOf(type);
  return asked.filter((kind) => !kind.startsWith("order."));
}

/** The event feed's handlers, one per route of the table. */
export const eventHandlers = {
  listEvents: async (c) => {
    const { limit, type, cursor } = c.req.valid("query");
    const page = await listEvents(c.get("services").db, {
      apiKeyHash: c.get("apiKey").hash,
      types: visibleKinds(type, c.get("apiKey").record.scopes),
      afterSeq: cursor === undefined ? 0 : decodeCursor(cursor),
      limit,
      now: Date.now(),
    });
    const { hasMore, lastSeq } = page;
    const next =
      hasMore && lastSeq !== undefined
        ? nextPageLink(c.req.url, { limit, type }, lastSeq)
        : undefined;
    return pageReply(c, page.events, next);
  },
} satisfies RouteHandlers<typeof eventRoutes>;
