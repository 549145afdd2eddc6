import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { nextPageLinkHeader } from "../api/pagination.ts";
import { commonHeaders, errorResponses } from "../api/responses.ts";
import { EVENT_TYPES } from "../db/schema.ts";
import { messages } from "../errors.ts";
import { eventSchemas } from "../events/events.schemas.ts";
import type { WebhookSettings } from "./webhook-settings.ts";
import type { WebhookUrlPolicy } from "./webhook-url.ts";
import {
  CreatedWebhookSchema,
  DeliveriesSchema,
  ListDeliveriesQuerySchema,
  MAX_WEBHOOKS,
  newWebhookSchema,
  WEBHOOK_NOT_FOUND,
  WebhookIdParamsSchema,
  WebhooksSchema,
} from "./webhooks.schemas.ts";

/** A delay as a reader takes it in: `30 s`, `2 min`, `6 h`. */
function duration(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** `a`, `a and b`, `a, b and c`. */
function list(items: readonly string[]): string {
  return items.length < 2
    ? (items[0] ?? "")
    : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** The receiver's time to answer, as the document states it. */
function answerWithin(settings: WebhookSettings): string {
  return duration(settings.timeoutMs / 1000);
}

/** How deliveries behave, as the tag and every webhook in the document state it: this environment's timeout and schedule. */
function deliveryRules(settings: WebhookSettings): string {
  const retries = list(settings.retryDelaysSeconds.map(duration));
  return `Each event is POSTed as JSON, signed per Standard Webhooks (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`; verify with the official \`standardwebhooks\` libraries and the endpoint's secret). Any 2xx within ${answerWithin(settings)} is success; anything else (another status, a redirect, which is never followed, a timeout, a failed connection) is retried after about ${retries}, then the delivery has failed. Each retry is signed afresh with its own timestamp but keeps the event's id as \`webhook-id\`. Delivery is at least once: deduplicate by \`webhook-id\`. Order of arrival is not promised: each event carries its \`createdAt\` and the full resource, and \`GET /events\` gives the true order.`;
}

const WEBHOOKS_TAG = "webhooks";

/** The `webhooks` tag of the document. */
export function webhooksTag(settings: WebhookSettings) {
  return {
    name: WEBHOOKS_TAG,
    description: `Endpoints that receive the account's events as they happen (beta), at most ${MAX_WEBHOOKS} per account. ${deliveryRules(settings)}`,
  };
}

const beta = {
  tags: [WEBHOOKS_TAG],
  security: [{ bearerAuth: [] }],
  "x-stability": "beta",
};

/** createWebhook, its body stating the URL rules of the environment it is documented for. */
export function createWebhookRoute(policy: WebhookUrlPolicy) {
  return createRoute({
    ...beta,
    method: "post",
    path: "/webhooks",
    operationId: "createWebhook",
    summary: "Register a webhook endpoint",
    description: `Registers an endpoint for the listed event kinds; it receives the events committed from now on. The reply holds the signing secret, shown this once. At most ${MAX_WEBHOOKS} endpoints per account: the next gives 409 \`limit_reached\`. Send \`Content-Type: application/json\` and at most 16 KiB.`,
    request: {
      body: {
        required: true,
        content: { "application/json": { schema: newWebhookSchema(policy) } },
      },
    },
    responses: {
      201: {
        description: "The endpoint, with its signing secret (never shown again).",
        headers: commonHeaders,
        content: { "application/json": { schema: CreatedWebhookSchema } },
      },
      ...errorResponses([
        400,
        401,
        {
          status: 409,
          codes: ["limit_reached"],
          description: `The account already has ${MAX_WEBHOOKS} endpoints; delete one first.`,
          message: messages.limitReached(MAX_WEBHOOKS, "webhook endpoints", "delete one"),
        },
        413,
        415,
        429,
        500,
        503,
      ]),
    },
  });
}

export const listWebhooksRoute = createRoute({
  ...beta,
  method: "get",
  path: "/webhooks",
  operationId: "listWebhooks",
  summary: "List the account's webhook endpoints",
  description: `The account's endpoints, oldest first (at most ${MAX_WEBHOOKS}, so never paged), without their secrets.`,
  responses: {
    200: {
      description: "The endpoints (possibly none).",
      headers: commonHeaders,
      content: { "application/json": { schema: WebhooksSchema } },
    },
    ...errorResponses([401, 429, 500, 503]),
  },
});

export const deleteWebhookRoute = createRoute({
  ...beta,
  method: "delete",
  path: "/webhooks/{webhookId}",
  operationId: "deleteWebhook",
  summary: "Delete a webhook endpoint",
  description:
    "Deletes the endpoint and its delivery history; nothing more is sent to it, including retries already scheduled. Another account's endpoint, or a `webhookId` that is not a valid identifier, gives 404.",
  request: { params: WebhookIdParamsSchema },
  responses: {
    204: { description: "Deleted.", headers: commonHeaders },
    ...errorResponses([401, [404, WEBHOOK_NOT_FOUND], 429, 500, 503]),
  },
});

export const listDeliveriesRoute = createRoute({
  ...beta,
  method: "get",
  path: "/webhooks/{webhookId}/deliveries",
  operationId: "listDeliveries",
  summary: "List an endpoint's delivery attempts",
  description:
    "Every attempt to deliver an event to the endpoint, oldest first: the event, when, the endpoint's status or why there was none, and when the next attempt is due. The body is the bare array; when more follow, `Link: <…>; rel=\"next\"` points at the next page. Another account's endpoint gives 404. Kept 30 days.",
  request: { params: WebhookIdParamsSchema, query: ListDeliveriesQuerySchema },
  responses: {
    200: {
      description: "A page of attempts (possibly empty).",
      headers: {
        ...commonHeaders,
        Link: nextPageLinkHeader(
          '<https://api.petstore.example.com/v1/webhooks/3/deliveries?limit=20&cursor=cDE6NDI>; rel="next"',
        ),
      },
      content: { "application/json": { schema: DeliveriesSchema } },
    },
    ...errorResponses([400, 401, [404, WEBHOOK_NOT_FOUND], 429, 500, 503]),
  },
});

/** The webhook operations, as the document for an environment with these settings describes them. */
export function webhooksOperations(settings: WebhookSettings): RouteConfig[] {
  return [
    createWebhookRoute(settings.urlPolicy),
    listWebhooksRoute,
    deleteWebhookRoute,
    listDeliveriesRoute,
  ];
}

const deliveryHeader = (description: string, example: string) => ({
  description,
  required: true,
  schema: { type: "string" as const },
  example,
});

/** The request each kind of event arrives as, for the document's `webhooks`. */
export function deliveredWebhooks(settings: WebhookSettings): RouteConfig[] {
  return EVENT_TYPES.map((type) => ({
    method: "post",
    path: type,
    operationId: `${type.replace(/[._](.)/g, (_, letter: string) => letter.toUpperCase())}Webhook`,
    tags: [WEBHOOKS_TAG],
    "x-stability": "beta",
    summary: `Delivery of a \`${type}\` event`,
    description: `What an endpoint subscribed to \`${type}\` receives. ${deliveryRules(settings)}`,
    security: [],
    parameters: [
      {
        name: "webhook-id",
        in: "header",
        ...deliveryHeader(
          "The event's id; the same on every retry.",
          "evt_01jd8x3q7m2n4p6r8s0t2v4w6y",
        ),
      },
      {
        name: "webhook-timestamp",
        in: "header",
        ...deliveryHeader("When this attempt was signed, in Unix seconds.", "1777897800"),
      },
      {
        name: "webhook-signature",
        in: "header",
        ...deliveryHeader(
          "`v1,` and the base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body`, keyed with the secret's bytes (after `whsec_`, base64-decoded).",
          "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
        ),
      },
    ],
    request: {
      body: { required: true, content: { "application/json": { schema: eventSchemas[type] } } },
    },
    responses: {
      "2XX": { description: "Received: the delivery succeeded, and is not repeated." },
      default: {
        description: `Anything else, or no answer within ${answerWithin(settings)}: the delivery is retried on the schedule.`,
      },
    },
  }));
}
