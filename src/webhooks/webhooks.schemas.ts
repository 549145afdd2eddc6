import { z } from "@hono/zod-openapi";
import { digitsAsInteger, IdentifierSchema, MAX_ID } from "../api/identifiers.ts";
import { pageParameters } from "../api/pagination.ts";
import { DELIVERY_OUTCOMES } from "../db/schema.ts";
import { EventTypeSelectorSchema } from "../events/events.schemas.ts";
import { WEBHOOK_SECRET_PATTERN } from "./webhook-signature.ts";
import {
  MAX_WEBHOOK_URL_LENGTH,
  type WebhookUrlPolicy,
  webhookUrlPattern,
  webhookUrlRules,
} from "./webhook-url.ts";

/** What a request for an endpoint that is not the caller's to see is told, whatever the reason. */
export const WEBHOOK_NOT_FOUND = "This account has no webhook endpoint with this identifier.";

/** Endpoints an account may have at once. */
export const MAX_WEBHOOKS = 10;

const EXAMPLE_URL = "https://example.com/petstore-events";
const EXAMPLE_TIME = "2026-05-04T12:30:00.000Z";

const instant = (description: string) =>
  z.iso.datetime().openapi({ description, example: EXAMPLE_TIME });

const types = z
  .array(EventTypeSelectorSchema)
  .min(1)
  .max(7)
  .refine((selectors) => new Set(selectors).size === selectors.length, "Must not repeat a type")
  .openapi({
    description:
      "The events to deliver: kinds (`pet.created`) or families (`pet.*`, `order.*`), each at most once. Order events are only ever those of this account's orders.",
    uniqueItems: true,
    example: ["pet.*", "order.completed"],
  });

/**
 * The body of createWebhook. The URL's rules depend on the environment (only
 * local development takes `http://127.0.0.1`), so the handler checks them and
 * the document states this environment's pattern; the server and the
 * document read the same rules.
 */
export function newWebhookSchema(policy: WebhookUrlPolicy) {
  return z
    .strictObject({
      url: z
        .string()
        .max(MAX_WEBHOOK_URL_LENGTH)
        .openapi({
          description: `Where to POST the events. ${webhookUrlRules(policy)}`,
          pattern: webhookUrlPattern(policy),
          example: EXAMPLE_URL,
        }),
      types,
    })
    .openapi("NewWebhook", { example: { url: EXAMPLE_URL, types: ["pet.*", "order.completed"] } });
}

export const WebhookSchema = z
  .object({
    id: IdentifierSchema.openapi({ description: "Assigned on creation.", example: 3 }),
    url: z.string().openapi({ example: EXAMPLE_URL }),
    types: z.array(EventTypeSelectorSchema).openapi({ example: ["pet.*", "order.completed"] }),
    createdAt: instant("When the endpoint was registered (RFC 3339, UTC)."),
  })
  .openapi("Webhook", {
    description:
      "An endpoint that receives the account's events. It receives events committed after it was registered. Its signing secret is never shown again after creation.",
    example: {
      id: 3,
      url: EXAMPLE_URL,
      types: ["pet.*", "order.completed"],
      createdAt: EXAMPLE_TIME,
    },
  });
export type Webhook = z.infer<typeof WebhookSchema>;

const EXAMPLE_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5Nqhk6cDk8E=";

export const CreatedWebhookSchema = WebhookSchema.extend({
  secret: z.string().regex(new RegExp(WEBHOOK_SECRET_PATTERN)).openapi({
    description:
      "The signing secret (Standard Webhooks): shown in this reply only, never again. Verify each delivery's `webhook-signature` with it, e.g. with the `standardwebhooks` library.",
    example: EXAMPLE_SECRET,
  }),
}).openapi("CreatedWebhook", {
  example: {
    id: 3,
    url: EXAMPLE_URL,
    types: ["pet.*", "order.completed"],
    createdAt: EXAMPLE_TIME,
    secret: EXAMPLE_SECRET,
  },
});

export const WebhooksSchema = z
  .array(WebhookSchema)
  .max(MAX_WEBHOOKS)
  .openapi("Webhooks", {
    description: "The account's endpoints, oldest first, as a bare array.",
    example: [
      { id: 3, url: EXAMPLE_URL, types: ["pet.*", "order.completed"], createdAt: EXAMPLE_TIME },
    ],
  });

export const WebhookIdParamsSchema = z.object({
  webhookId: digitsAsInteger(z.int().min(1).max(MAX_ID)).openapi({
    param: { name: "webhookId", in: "path" },
    format: "int64",
    example: 3,
  }),
});

export const DeliveryOutcomeSchema = z.enum(DELIVERY_OUTCOMES).openapi("DeliveryOutcome", {
  description:
    "`succeeded`: the endpoint answered 2xx. `retrying`: it did not; another attempt follows at `nextRetryAt`. `failed`: it did not, and that was the last attempt.",
  example: "retrying",
});

/** A second attempt, 30 s after the first, with the next due 2 minutes later. */
const EXAMPLE_DELIVERY = {
  id: 12,
  eventId: "evt_01jd8x3q7m2n4p6r8s0t2v4w6y",
  attempt: 2,
  attemptedAt: "2026-05-04T12:30:30.000Z",
  outcome: "retrying",
  responseStatus: 503,
  error: null,
  nextRetryAt: "2026-05-04T12:32:30.000Z",
};

export const DeliverySchema = z
  .object({
    id: IdentifierSchema.openapi({ description: "Identifies the attempt.", example: 12 }),
    eventId: z
      .string()
      .openapi({ description: "The event delivered.", example: "evt_01jd8x3q7m2n4p6r8s0t2v4w6y" }),
    attempt: z
      .int()
      .min(1)
      .openapi({ description: "1 for the first attempt, then 2, 3 …", example: 2 }),
    attemptedAt: instant("When the attempt was made (RFC 3339, UTC)."),
    outcome: DeliveryOutcomeSchema,
    responseStatus: z.int().min(100).max(599).nullable().openapi({
      description: "The endpoint's HTTP status; null when it gave none.",
      example: 503,
    }),
    error: z.string().nullable().openapi({
      description:
        "Why there was no HTTP status (a timeout, a refused connection); otherwise null.",
      example: null,
    }),
    nextRetryAt: z.iso.datetime().nullable().openapi({
      description: "When the next attempt is due (RFC 3339, UTC); null unless `retrying`.",
      example: "2026-05-04T12:32:00.000Z",
    }),
  })
  .openapi("Delivery", {
    description: "One attempt to deliver an event to the endpoint.",
    example: EXAMPLE_DELIVERY,
  });
export type Delivery = z.infer<typeof DeliverySchema>;

export const DeliveriesSchema = z
  .array(DeliverySchema)
  .max(100)
  .openapi("Deliveries", {
    description: "A page of attempts, oldest first, as a bare array.",
    example: [
      {
        ...EXAMPLE_DELIVERY,
        id: 11,
        attempt: 1,
        attemptedAt: EXAMPLE_TIME,
        nextRetryAt: EXAMPLE_DELIVERY.attemptedAt,
      },
      EXAMPLE_DELIVERY,
    ],
  });

const deliveryPages = pageParameters("attempts");

export const ListDeliveriesQuerySchema = z.object({
  limit: deliveryPages.limit,
  cursor: deliveryPages.cursor,
});
