import type { RouteConfig } from "@hono/zod-openapi";
import { EVENT_TYPES } from "../db/schema.ts";
import { eventSchemas } from "../events/events.schemas.ts";
import type { WebhookSettings } from "./webhook-settings.ts";
import { MAX_WEBHOOKS, TestEventSchema } from "./webhooks.schemas.ts";

/*
 * What the document says of deliveries: the `webhooks` tag, and the
 * request each kind of event arrives as (its `webhooks` section), with this
 * environment's timeout and retry schedule.
 */

/** A delay as a reader takes it in: `30 s`, `2 min`, `6 h`. */
function duration(seconds: number): string {
  if (seconds >= 86_400 && seconds % 86_400 === 0) return `${seconds / 86_400} days`;
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
  return `Each event is POSTed as JSON, signed per Standard Webhooks (\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`; verify with the official \`standardwebhooks\` libraries and the endpoint's secret). Any 2xx within ${answerWithin(settings)} is success; anything else (another status, a redirect, which is never followed, a timeout, a failed connection) is retried after about ${retries}, then the delivery has failed; a 429 or 503 with \`Retry-After\` waits at least that long. An endpoint with no successful delivery since a failure ${duration(settings.disableAfterMs / 1000)} old, or that answers 410 Gone, is disabled until its owner enables it again. Each retry is signed afresh with its own timestamp but keeps the event's id as \`webhook-id\`. Each delivery is signed with every secret of the endpoint younger than 24 hours since it was replaced, newest first, space-separated. Delivery is at least once: deduplicate by \`webhook-id\`. Order of arrival is not promised: each event carries its \`createdAt\` and the full resource, and \`GET /events\` gives the true order.`;
}

/** The tag of every webhook operation and delivery in the document. */
export const WEBHOOKS_TAG = "webhooks";

/** The `webhooks` tag of the document. */
export function webhooksTag(settings: WebhookSettings) {
  return {
    name: WEBHOOKS_TAG,
    description: `Endpoints that receive the account's events as they happen (beta), at most ${MAX_WEBHOOKS} per account. ${deliveryRules(settings)}`,
  };
}

const deliveryHeader = (description: string, example: string) => ({
  description,
  required: true,
  schema: { type: "string" as const },
  example,
});

const deliveredKinds = [
  ...EVENT_TYPES.map((type) => ({ type, schema: eventSchemas[type] })),
  { type: "webhook.test", schema: TestEventSchema },
];

/** The request each kind of event arrives as, for the document's `webhooks`. */
export function deliveredWebhooks(settings: WebhookSettings): RouteConfig[] {
  return deliveredKinds.map(({ type, schema }) => ({
    method: "post",
    path: type,
    operationId: `${type.replace(/[._](.)/g, (_, letter: string) => letter.toUpperCase())}Webhook`,
    tags: [WEBHOOKS_TAG],
    "x-stability": "beta",
    summary: `Delivery of a \`${type}\` event`,
    // How deliveries are signed, retried and ordered is stated once, in the tag.
    description: `What an endpoint subscribed to \`${type}\` receives, signed and retried as the \`${WEBHOOKS_TAG}\` tag describes.`,
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
      body: { required: true, content: { "application/json": { schema } } },
    },
    responses: {
      "2XX": { description: "Received: the delivery succeeded, and is not repeated." },
      default: {
        description: `Anything else, or no answer within ${answerWithin(settings)}: the delivery is retried on the schedule.`,
      },
    },
  }));
}
