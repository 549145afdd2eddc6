import { events } from "../db/schema.ts";
import type { PetStatus } from "../pets/pets.schemas.ts";
import type { Event, EventType } from "./events.schemas.ts";

/**
 * An event as stored and as delivered, and a delivery's queue message: what
 * the feed and the webhooks share, so neither reads the other's queries.
 */

/** The columns an event is read with, for the feed and for a delivery. */
export const eventColumns = {
  seq: events.seq,
  id: events.id,
  type: events.type,
  data: events.data,
  previousStatus: events.previousStatus,
  createdAt: events.createdAt,
};

export interface EventRow {
  seq: number;
  id: string;
  type: EventType;
  data: string;
  previousStatus: PetStatus | null;
  createdAt: Date;
}

/** An event as the feed lists it and a webhook delivers it. */
export function toEvent(row: EventRow): Event {
  const event = {
    id: row.id,
    type: row.type,
    createdAt: row.createdAt.toISOString(),
    data: JSON.parse(row.data),
  };
  return (
    row.previousStatus === null ? event : { ...event, previousStatus: row.previousStatus }
  ) as Event;
}

/** One queue message: deliver this event to this endpoint. */
export interface DeliveryMessage {
  eventId: string;
  webhookId: number;
}
