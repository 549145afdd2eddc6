import { events } from "../db/schema.ts";
import { instant, jsonText, optional, shape } from "../db/shape.ts";
import type { Event } from "./events.schemas.ts";

/**
 * An event as stored and as delivered: what the feed and the webhook
 * deliveries share, so neither reads the other's queries.
 */

/** An event as the feed lists it and a webhook delivers it. */
export const eventShape = shape(events, {
  id: events.id,
  type: events.type,
  createdAt: instant(events.createdAt),
  data: jsonText<unknown>(events.data),
  previousStatus: optional(events.previousStatus),
  changes: optional(jsonText<unknown>(events.changes)),
});

/** The columns an event is read with: its shape's, and its place in the feed. */
export const eventColumns = { seq: events.seq, ...eventShape.columns };

/** An event row read with `eventColumns`, as the feed lists it and a webhook delivers it. */
export function toEvent(row: Parameters<typeof eventShape.render>[0]): Event {
  return eventShape.render(row) as Event;
}
