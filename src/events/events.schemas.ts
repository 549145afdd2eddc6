import { z } from "@hono/zod-openapi";
import { listOf, pageParameters } from "../api/pagination.ts";
import { CategorySchema } from "../categories/categories.schemas.ts";
import { EVENT_TYPES } from "../db/schema.ts";
import { OrderSchema } from "../orders/orders.schemas.ts";
import { examplePet, PetSchema, PetStatusSchema } from "../pets/pets.schemas.ts";
import { ShelterSchema } from "../shelters/shelters.schemas.ts";

const EventTypeSchema = z.enum(EVENT_TYPES).openapi("EventType", {
  description:
    "What changed: an animal was added, changed, moved to another status or deleted (`pet.created`, `pet.updated`, `pet.status_changed`, `pet.deleted`); a category was added, renamed or deleted (`category.created`, `category.updated`, `category.deleted`); a shelter was added, changed or deleted (`shelter.created`, `shelter.updated`, `shelter.deleted`); an order was placed, completed or cancelled (`order.placed`, `order.completed`, `order.cancelled`).",
  example: "pet.status_changed",
});
export type EventType = z.infer<typeof EventTypeSchema>;

/** The families a client can ask for as a whole: every kind whose name starts `pet.`, `category.`, `shelter.` or `order.`. */
export const EVENT_FAMILIES = ["pet.*", "category.*", "shelter.*", "order.*"] as const;
type EventFamily = (typeof EVENT_FAMILIES)[number];

export const EventTypeSelectorSchema = z
  .enum([...EVENT_TYPES, ...EVENT_FAMILIES])
  .openapi("EventTypeSelector", {
    description:
      "One kind of event, or a family of them: `pet.*`, `category.*`, `shelter.*` or `order.*`.",
    example: "order.*",
  });
export type EventTypeSelector = z.infer<typeof EventTypeSelectorSchema>;

const isFamily = (selector: EventTypeSelector): selector is EventFamily =>
  (EVENT_FAMILIES as readonly string[]).includes(selector);

/** The kinds a selector stands for. */
export function kindsOf(selector: EventTypeSelector): EventType[] {
  if (isFamily(selector)) {
    const family = selector.slice(0, -1);
    return EVENT_TYPES.filter((kind) => kind.startsWith(family));
  }
  return [selector];
}

const EXAMPLE_ID = "evt_01jd8x3q7m2n4p6r8s0t2v4w6y";
const EXAMPLE_TIME = "2026-05-04T12:30:00.125Z";

const eventId = z
  .string()
  .regex(/^evt_[0-9a-hjkmnp-tv-z]{26}$/)
  .openapi("EventId", {
    description:
      "Identifies the event: `evt_` and 26 lowercase Crockford base32 characters. The same on every delivery of the event (`webhook-id`), so receivers deduplicate by it. Not ordered: the feed gives the order.",
    example: EXAMPLE_ID,
  });

const createdAt = z.iso.datetime().openapi("EventCreatedAt", {
  description:
    "When the change was committed (RFC 3339, UTC), by the database's clock: never earlier than the events before it in the feed.",
  example: EXAMPLE_TIME,
});

/** The animal the events' examples show: the document's, with an order placed for it. */
const pendingPet = {
  ...examplePet,
  status: "pending",
  goodWithDogs: null,
  spayedNeutered: null,
  etag: '"2"',
};
const exampleCategory = { id: 8, name: "Ferrets", etag: '"1"' };
const exampleOrder = {
  id: 7,
  petId: 42,
  status: "placed",
  createdAt: EXAMPLE_TIME,
  updatedAt: EXAMPLE_TIME,
};

interface EventKind<T extends EventType, D extends z.ZodType, E extends z.ZodRawShape> {
  name: string;
  type: T;
  data: D;
  /** What happened. */
  what: string;
  /** What `data` holds. */
  dataIs: string;
  example: object;
  /** Fields this kind adds. */
  extra?: E;
}

/** One kind of event: its `type`, and `data` the resource as the API returns it after the change. */
function eventSchema<
  T extends EventType,
  D extends z.ZodType,
  E extends z.ZodRawShape = Record<never, never>,
>(kind: EventKind<T, D, E>) {
  return z
    .object({
      id: eventId,
      type: z.literal(kind.type).openapi({ description: `Always \`${kind.type}\`.` }),
      createdAt,
      data: kind.data.openapi({ description: kind.dataIs }),
      ...(kind.extra ?? ({} as E)),
    })
    .openapi(kind.name, {
      description: `\`${kind.type}\`: ${kind.what}`,
      example: { id: EXAMPLE_ID, type: kind.type, createdAt: EXAMPLE_TIME, ...kind.example },
    });
}

const PetCreatedEventSchema = eventSchema({
  name: "PetCreatedEvent",
  type: "pet.created",
  data: PetSchema,
  what: "an animal was added.",
  dataIs: "The animal as created.",
  example: { data: { ...pendingPet, status: "available" } },
});

const PetUpdatedEventSchema = eventSchema({
  name: "PetUpdatedEvent",
  type: "pet.updated",
  data: PetSchema,
  what: "an animal's fields were changed (not by an order, whose moves are `pet.status_changed` alone).",
  dataIs: "The animal after the change.",
  example: { data: { ...pendingPet, name: "Rex the Brave", etag: '"3"' }, changes: ["name"] },
  extra: {
    changes: z
      .array(z.enum(["name", "categoryId", "status", "photoUrls"]))
      .min(1)
      .openapi({ description: "The fields that changed (never `etag`).", example: ["name"] }),
  },
});

const PetStatusChangedEventSchema = eventSchema({
  name: "PetStatusChangedEvent",
  type: "pet.status_changed",
  data: PetSchema,
  what: "an animal changed status: an order was placed, completed or cancelled, or a change set it (which also sends `pet.updated`).",
  dataIs: "The animal with its new status.",
  example: { data: pendingPet, previousStatus: "available" },
  extra: {
    previousStatus: PetStatusSchema.openapi({ description: "The status before the change." }),
  },
});

const PetDeletedEventSchema = eventSchema({
  name: "PetDeletedEvent",
  type: "pet.deleted",
  data: PetSchema,
  what: "an animal was deleted.",
  dataIs: "The animal as it was, with the `etag` of its deletion.",
  example: { data: { ...pendingPet, status: "available", etag: '"3"' } },
});

/**
 * A catalogue record's three events: added, changed (`updated` says how,
 * with its example) and deleted; `data` the record as the API returns it.
 */
function recordEvents<F extends "category" | "shelter", D extends z.ZodType>(record: {
  family: F;
  data: D;
  example: object;
  updated: { what: string; example: object };
}) {
  const { family, data, example, updated } = record;
  const name = family.charAt(0).toUpperCase() + family.slice(1);
  return {
    created: eventSchema({
      name: `${name}CreatedEvent`,
      type: `${family}.created`,
      data,
      what: `a ${family} was added.`,
      dataIs: `The ${family} as created.`,
      example: { data: example },
    }),
    updated: eventSchema({
      name: `${name}UpdatedEvent`,
      type: `${family}.updated`,
      data,
      what: updated.what,
      dataIs: `The ${family} after the change.`,
      example: { data: updated.example },
    }),
    deleted: eventSchema({
      name: `${name}DeletedEvent`,
      type: `${family}.deleted`,
      data,
      what: `a ${family} was deleted.`,
      dataIs: `The ${family} as it was, with the \`etag\` of its deletion.`,
      example: { data: { ...example, etag: '"2"' } },
    }),
  };
}

const categoryEvents = recordEvents({
  family: "category",
  data: CategorySchema,
  example: exampleCategory,
  updated: {
    what: "a category was renamed.",
    example: { ...exampleCategory, name: "Ferrets and weasels", etag: '"2"' },
  },
});

const exampleShelter = {
  id: 7,
  name: "Happy Tails Rescue",
  email: "hello@happytails.example",
  phone: null,
  website: null,
  address: { street: null, city: "London", region: null, postalCode: null, country: "GB" },
  latitude: 51.5072,
  longitude: -0.1276,
  distanceKm: null,
  etag: '"1"',
};

const shelterEvents = recordEvents({
  family: "shelter",
  data: ShelterSchema,
  example: exampleShelter,
  updated: {
    what: "a shelter was changed.",
    example: { ...exampleShelter, phone: "+44 20 7946 0000", etag: '"2"' },
  },
});

const OrderPlacedEventSchema = eventSchema({
  name: "OrderPlacedEvent",
  type: "order.placed",
  data: OrderSchema,
  what: "an order was placed (its animal is now `pending`).",
  dataIs: "The order as placed.",
  example: { data: exampleOrder },
});

const MOVED_AT = "2026-05-04T12:41:07.250Z";

const OrderCompletedEventSchema = eventSchema({
  name: "OrderCompletedEvent",
  type: "order.completed",
  data: OrderSchema,
  what: "an order was completed (its animal is `sold`).",
  dataIs: "The order, now `completed`.",
  example: { data: { ...exampleOrder, status: "completed", updatedAt: MOVED_AT } },
});

const OrderCancelledEventSchema = eventSchema({
  name: "OrderCancelledEvent",
  type: "order.cancelled",
  data: OrderSchema,
  what: "an order was cancelled (its animal is `available` again).",
  dataIs: "The order, now `cancelled`.",
  example: { data: { ...exampleOrder, status: "cancelled", updatedAt: MOVED_AT } },
});

/** Each kind's schema, for the feed's union and the webhooks the document describes. */
export const eventSchemas = {
  "pet.created": PetCreatedEventSchema,
  "pet.updated": PetUpdatedEventSchema,
  "pet.status_changed": PetStatusChangedEventSchema,
  "pet.deleted": PetDeletedEventSchema,
  "category.created": categoryEvents.created,
  "category.updated": categoryEvents.updated,
  "category.deleted": categoryEvents.deleted,
  "shelter.created": shelterEvents.created,
  "shelter.updated": shelterEvents.updated,
  "shelter.deleted": shelterEvents.deleted,
  "order.placed": OrderPlacedEventSchema,
  "order.completed": OrderCompletedEventSchema,
  "order.cancelled": OrderCancelledEventSchema,
} as const satisfies Record<EventType, z.ZodType>;

const EventSchema = z
  .discriminatedUnion("type", [
    PetCreatedEventSchema,
    PetUpdatedEventSchema,
    PetStatusChangedEventSchema,
    PetDeletedEventSchema,
    categoryEvents.created,
    categoryEvents.updated,
    categoryEvents.deleted,
    shelterEvents.created,
    shelterEvents.updated,
    shelterEvents.deleted,
    OrderPlacedEventSchema,
    OrderCompletedEventSchema,
    OrderCancelledEventSchema,
  ])
  .openapi("Event", {
    description:
      "A change, as the feed lists it and a webhook delivers it: `data` is the animal, category, shelter or order as the API returns it after the change (as it was, for a deletion); `previousStatus` only on `pet.status_changed`, `changes` only on `pet.updated`.",
    example: {
      id: EXAMPLE_ID,
      type: "pet.status_changed",
      createdAt: EXAMPLE_TIME,
      data: pendingPet,
      previousStatus: "available",
    },
  });
export type Event = z.infer<typeof EventSchema>;

export const EventsSchema = listOf("Events", EventSchema, {
  description: "A page of events, oldest first (in commit order), as a bare array.",
  example: [
    {
      id: "evt_01jd8x3q7m2n4p6r8s0t2v4w6y",
      type: "pet.status_changed",
      createdAt: EXAMPLE_TIME,
      data: pendingPet,
      previousStatus: "available",
    },
    {
      id: "evt_7k2w9d4h6j8m0p2r4t6v8x0z2b",
      type: "order.placed",
      createdAt: EXAMPLE_TIME,
      data: exampleOrder,
    },
  ],
});

const eventPages = pageParameters("events");

export const ListEventsQuerySchema = z.object({
  limit: eventPages.limit,
  type: EventTypeSelectorSchema.optional().openapi({
    param: { name: "type", in: "query" },
    description:
      "Only events of this kind, or of this family (`pet.*`, `category.*`, `shelter.*`, `order.*`).",
  }),
  cursor: eventPages.cursor,
});
