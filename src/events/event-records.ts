import { events } from "../db/schema.ts";
import { instant, jsonText, optional, shape } from "../db/shape.ts";
import type { Event } from "./events.schemas.ts";

/**
 * An event as stored and as delivered, and a delivery's queue message: what
 * the feed and the webhooks share, so neither reads the other's queries.
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

const ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** A new event id: `evt_` and 26 random lowercase Crockford base32 characters. */
export function newEventId(): string {
  let id = "evt_";
  for (const byte of crypto.getRandomValues(new Uint8Array(26))) id += ID_ALPHABET[byte & 31];
  return id;
}

/** One queue message: deliver this event to this endpoint. */
export interface DeliveryMessage {
  eventId: string;
  webhookId: number;
}
