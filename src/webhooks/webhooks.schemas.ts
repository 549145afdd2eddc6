import { z } from "@hono/zod-openapi";
import { IdentifierSchema, idParams } from "../api/identifiers.ts";
import { listOf, pageParameters } from "../api/pagination.ts";
import { WEBHOOK_STATUSES } from "../db/schema.ts";
import { EventTypeSelectorSchema } from "../events/events.schemas.ts";
import {
  MAX_WEBHOOK_URL_LENGTH,
  type WebhookUrlPolicy,
  webhookUrlPattern,
  webhookUrlRules,
} from "../webhook-urls/webhook-url.ts";
import { DELIVERY_STATUSES } from "./delivery-status.ts";
import { WEBHOOK_SECRET_PATTERN } from "./webhook-secrets.ts";

/** What a request for an endpoint that is not the caller's to see is told, whatever the reason. */
export const WEBHOOK_NOT_FOUND = "This account has no webhook endpoint with this identifier.";

/** What a request for a delivery the endpoint does not have is told. */
export const DELIVERY_NOT_FOUND = "This webhook endpoint has no delivery with this identifier.";

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
  .openapi("WebhookTypes", {
    description:
      "The events to deliver: kinds (`pet.created`) or families (`pet.*`, `category.*`, `shelter.*`, `order.*`), each at most once. Order events are only ever those of this account's orders, and need a key with the `orders:read` scope as well.",
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
    .strictObject({ url: urlSchema(policy), types })
    .openapi("NewWebhook", { example: { url: EXAMPLE_URL, types: ["pet.*", "order.completed"] } });
}

/** The endpoint URL, named so the document states its long pattern once for both bodies. */
function urlSchema(policy: WebhookUrlPolicy) {
  return z
    .string()
    .max(MAX_WEBHOOK_URL_LENGTH)
    .openapi("WebhookUrl", {
      description: `Where to POST the events. ${webhookUrlRules(policy)}`,
      pattern: webhookUrlPattern(policy),
      example: EXAMPLE_URL,
    });
}

/** The body of updateWebhook: any of the fields, each under the rules of creation. */
export function webhookChangeSchema(policy: WebhookUrlPolicy) {
  return z
    .strictObject({
      url: urlSchema(policy).optional(),
      types: types.optional(),
      enabled: z.boolean().optional().openapi({
        description:
          "`false` pauses the endpoint: no attempts are made, and the events it would have received are recorded as `skipped`. `true` enables it again, also after the service disabled it.",
        example: false,
      }),
    })
    .refine((change) => Object.keys(change).length > 0, "Must change at least one field")
    .openapi("WebhookChange", {
      minProperties: 1,
      example: { enabled: false },
    });
}

const exampleWebhook = {
  id: 3,
  url: EXAMPLE_URL,
  types: ["pet.*", "order.completed"],
  status: "enabled",
  createdAt: EXAMPLE_TIME,
};

export const WebhookSchema = z
  .object({
    id: IdentifierSchema.openapi({ description: "Assigned on creation.", example: 3 }),
    url: z.string().openapi({ example: EXAMPLE_URL }),
    types: z.array(EventTypeSelectorSchema).openapi({ example: ["pet.*", "order.completed"] }),
    status: z.enum(WEBHOOK_STATUSES).openapi({
      description:
        "`enabled`: deliveries are attempted. `disabled`: paused by its owner, or disabled by the service (then with `disabledReason`); no attempts are made until it is enabled again.",
      example: "enabled",
    }),
    disabledReason: z.string().optional().openapi({
      description:
        "Present when the service disabled the endpoint: it answered 410 Gone, or had no successful attempt since a failure days old.",
      example: "The endpoint answered 410 Gone.",
    }),
    createdAt: instant("When the endpoint was registered (RFC 3339, UTC)."),
  })
  .openapi("Webhook", {
    description:
      "An endpoint that receives the account's events. It receives events committed after it was registered. Its signing secret is never shown again after creation or rotation.",
    example: exampleWebhook,
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
  example: { ...exampleWebhook, secret: EXAMPLE_SECRET },
});

export type CreatedWebhook = z.infer<typeof CreatedWebhookSchema>;

export const WebhooksSchema = listOf(
  "Webhooks",
  WebhookSchema,
  {
    description: "The account's endpoints, oldest first, as a bare array.",
    example: [
      {
        id: 3,
        url: EXAMPLE_URL,
        types: ["pet.*", "order.completed"],
        status: "enabled",
        createdAt: EXAMPLE_TIME,
      },
    ],
  },
  MAX_WEBHOOKS,
);

export const WebhookIdParamsSchema = idParams("webhookId", 3);

export const DeliveryIdParamsSchema = WebhookIdParamsSchema.extend(
  idParams("deliveryId", 12).shape,
);

const DeliveryStatusSchema = z.enum(DELIVERY_STATUSES).openapi("DeliveryStatus", {
  description:
    "`pending`: an attempt is due at `nextAttemptAt`. `succeeded`: the endpoint answered 2xx. `failed`: it did not, and the schedule is spent (or it was a single attempt: a test send or a retry). `skipped`: the endpoint was disabled when it was due, so no attempt was made.",
  example: "pending",
});

const AttemptSchema = z
  .object({
    attemptedAt: instant("When the attempt was made (RFC 3339, UTC)."),
    responseStatus: z.int().min(100).max(599).nullable().openapi({
      description: "The endpoint's HTTP status; null when it gave none.",
      example: 503,
    }),
    error: z.string().nullable().openapi({
      description:
        "Why there was no HTTP status (a timeout, a refused connection); otherwise null.",
      example: null,
    }),
  })
  .openapi("DeliveryAttempt", {
    description: "One POST of the event to the endpoint.",
    example: { attemptedAt: EXAMPLE_TIME, responseStatus: 503, error: null },
  });

const EXAMPLE_DELIVERY = {
  id: 12,
  eventId: "evt_01jd8x3q7m2n4p6r8s0t2v4w6y",
  status: "pending",
  createdAt: EXAMPLE_TIME,
  nextAttemptAt: "2026-05-04T12:32:30.000Z",
  attempts: [
    { attemptedAt: "2026-05-04T12:30:00.100Z", responseStatus: 503, error: null },
    {
      attemptedAt: "2026-05-04T12:30:30.100Z",
      responseStatus: null,
      error: "No response within 10 s.",
    },
  ],
};

export const DeliverySchema = z
  .object({
    id: IdentifierSchema.openapi({
      description: "Identifies the delivery among the endpoint's.",
      example: 12,
    }),
    eventId: z.string().openapi({
      description: "The event delivered: its `webhook-id`, the same on every attempt.",
      example: "evt_01jd8x3q7m2n4p6r8s0t2v4w6y",
    }),
    status: DeliveryStatusSchema,
    createdAt: instant("When the endpoint's object took the event for delivery (RFC 3339, UTC)."),
    nextAttemptAt: z.iso.datetime().nullable().openapi({
      description: "When the next attempt is due (RFC 3339, UTC); null unless `pending`.",
      example: "2026-05-04T12:32:30.000Z",
    }),
    attempts: z.array(AttemptSchema).openapi({ description: "The attempts made, oldest first." }),
  })
  .openapi("Delivery", {
    description: "One event on its way to the endpoint, with every attempt to deliver it.",
    example: EXAMPLE_DELIVERY,
  });
export type Delivery = z.infer<typeof DeliverySchema>;
export type DeliveryAttempt = z.infer<typeof AttemptSchema>;

export const DeliveriesSchema = listOf("Deliveries", DeliverySchema, {
  description: "A page of deliveries, newest first, as a bare array.",
  example: [EXAMPLE_DELIVERY],
});

const deliveryPages = pageParameters("deliveries");

export const ListDeliveriesQuerySchema = z.object({
  limit: deliveryPages.limit,
  cursor: deliveryPages.cursor,
});

export const RecoverSchema = z
  .strictObject({
    since: z.iso.datetime({ offset: true }).openapi({
      description:
        "Queue again the endpoint's deliveries made since this instant (RFC 3339) that failed or were skipped; events are kept 30 days.",
      example: EXAMPLE_TIME,
    }),
  })
  .openapi("WebhookRecovery", { example: { since: EXAMPLE_TIME } });

export const RecoveredSchema = z
  .object({
    queued: z.int().min(0).openapi({ description: "Events queued again.", example: 4 }),
  })
  .openapi("WebhookRecovered", { example: { queued: 4 } });

/** `webhook.test`: what testWebhook sends; never in the feed. */
export const TestEventSchema = z
  .object({
    id: z
      .string()
      .regex(/^evt_[0-9a-hjkmnp-tv-z]{26}$/)
      .openapi({
        description:
          "Identifies the test event: `evt_` and 26 lowercase Crockford base32 characters, the `webhook-id` of its delivery.",
        example: "evt_01jd8x3q7m2n4p6r8s0t2v4w6y",
      }),
    type: z.literal("webhook.test").openapi({ description: "Always `webhook.test`." }),
    createdAt: instant("When the test was asked for (RFC 3339, UTC)."),
    data: z
      .object({ webhookId: IdentifierSchema.openapi({ example: 3 }) })
      .openapi({ description: "The endpoint tested." }),
  })
  .openapi("TestEvent", {
    description:
      "`webhook.test`: sent by testWebhook to one endpoint, to check that it receives and verifies deliveries. Not in the event feed.",
    example: {
      id: "evt_01jd8x3q7m2n4p6r8s0t2v4w6y",
      type: "webhook.test",
      createdAt: EXAMPLE_TIME,
      data: { webhookId: 3 },
    },
  });
