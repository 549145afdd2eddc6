import { pagedListing } from "../api/pagination.ts";
import { apiRoutes } from "../api/route-table.ts";
import { EventsSchema, ListEventsQuerySchema } from "./events.schemas.ts";

/** The `events` tag of the document. */
export const eventsTag = {
  name: "events",
  description:
    "What changed, in the order it was committed (beta): animals added, changed, moved or deleted; categories added, renamed or deleted; shelters added, changed or deleted; orders placed, completed or cancelled. Every change writes its events in the same transaction, so no change goes without them. `pet.*`, `category.*` and `shelter.*` events are everyone's (the catalogue is shared); `order.*` events only the ordering account's, and only to keys that also have the `orders:read` scope. Kept 30 days.",
};

/** The event feed's operations, keyed by operation id: the one declaration of each. */
export const eventRoutes = apiRoutes({
  listEvents: {
    method: "get",
    path: "/events",
    tags: [eventsTag.name],
    stability: "beta",
    scope: "events:read",
    summary: "List events",
    description:
      'The events the caller may see from the last 30 days (`order.*` events only with the `orders:read` scope as well), in the order the changes were committed (not the order of their ids), stable across pages; `type` narrows to one kind or a family (`pet.*`, `category.*`, `shelter.*`, `order.*`). The body is the bare array; when more events follow, `Link: <…>; rel="next"` points at the next page. Follow it rather than building the cursor; keep the last link to poll for newer events later.',
    ...pagedListing({
      query: ListEventsQuerySchema,
      page: EventsSchema,
      description: "A page of events (possibly empty).",
      next: '<https://api.petstore.example.com/v1/events?limit=20&type=order.*&cursor=cDE6OTg>; rel="next"',
    }),
  },
});
