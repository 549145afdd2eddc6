import { pagedListing } from "../api/pagination.ts";
import { oneRecordErrors, readReplies } from "../api/record-responses.ts";
import { jsonBody } from "../api/request-bodies.ts";
import {
  ANY_OPERATION,
  deletedReply,
  errorResponses,
  idempotentReplayedHeader,
  jsonReply,
} from "../api/responses.ts";
import { type ApiRoute, apiRoutes } from "../api/route-table.ts";
import { messages } from "../errors.ts";
import type { WebhookUrlPolicy } from "../webhook-urls/webhook-url.ts";
import { WEBHOOKS_TAG } from "./delivered-webhooks.ts";
import {
  CreatedWebhookSchema,
  DELIVERY_NOT_FOUND,
  DeliveriesSchema,
  DeliveryIdParamsSchema,
  DeliverySchema,
  ListDeliveriesQuerySchema,
  MAX_WEBHOOKS,
  newWebhookSchema,
  RecoveredSchema,
  RecoverSchema,
  WEBHOOK_NOT_FOUND,
  WebhookIdParamsSchema,
  WebhookSchema,
  WebhooksSchema,
  webhookChangeSchema,
} from "./webhooks.schemas.ts";

/** What a replay of the operations that take an Idempotency-Key holds. */
const REPLAYED_SECRET =
  "A replay holds the same secret: the stored reply keeps it for those 24 hours.";

const beta = { tags: [WEBHOOKS_TAG], stability: "beta" } satisfies Partial<ApiRoute>;

/**
 * The webhook endpoints' operations, keyed by operation id: the one
 * declaration of each. The bodies of createWebhook and updateWebhook state
 * the URL rules of the environment they are documented for (`policy`).
 */
export function webhookRoutes(policy: WebhookUrlPolicy) {
  return apiRoutes({
    createWebhook: {
      ...beta,
      scope: "webhooks:write",
      method: "post",
      path: "/webhooks",
      idempotent: true,
      summary: "Register a webhook endpoint",
      description: `Registers an endpoint for the listed event kinds; it receives the events committed from now on. \`order.*\` kinds need the \`orders:read\` scope as well: without it, 403 \`insufficient_scope\`. The reply holds the signing secret, shown this once. At most ${MAX_WEBHOOKS} endpoints per account: the next gives 409 \`limit_reached\`. ${REPLAYED_SECRET}`,
      request: {
        body: jsonBody(newWebhookSchema(policy)),
      },
      responses: {
        201: jsonReply(
          "The endpoint, with its signing secret (never shown again).",
          CreatedWebhookSchema,
          { "Idempotent-Replayed": idempotentReplayedHeader },
        ),
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
          422,
          ...ANY_OPERATION,
        ]),
      },
    },
    listWebhooks: {
      ...beta,
      scope: "webhooks:read",
      method: "get",
      path: "/webhooks",
      summary: "List the account's webhook endpoints",
      description: `The account's endpoints, oldest first (at most ${MAX_WEBHOOKS}, so never paged), without their secrets.`,
      responses: {
        200: jsonReply("The endpoints (possibly none).", WebhooksSchema),
        ...errorResponses([401, ...ANY_OPERATION]),
      },
    },
    getWebhook: {
      ...beta,
      scope: "webhooks:read",
      method: "get",
      path: "/webhooks/{webhookId}",
      invalidIdMessage: WEBHOOK_NOT_FOUND,
      summary: "Get a webhook endpoint",
      description:
        "One of the account's endpoints, without its secret: its `status`, and `disabledReason` when the service disabled it. Another account's endpoint, or a `webhookId` that is not a valid identifier, gives 404.",
      request: { params: WebhookIdParamsSchema },
      responses: readReplies("The endpoint.", WebhookSchema, [404, WEBHOOK_NOT_FOUND]),
    },
    updateWebhook: {
      ...beta,
      scope: "webhooks:write",
      method: "patch",
      path: "/webhooks/{webhookId}",
      invalidIdMessage: WEBHOOK_NOT_FOUND,
      summary: "Change, pause or enable a webhook endpoint",
      description:
        "Changes the endpoint's `url`, `types` or `enabled`, each under the rules of creation (`order.*` types need the `orders:read` scope as well), for the deliveries made from now on. `enabled: false` pauses it: no attempts are made, and the events it would have received are recorded as `skipped` (`recoverWebhook` sends them later). `enabled: true` enables it again, also after the service disabled it; its health starts afresh. Send `Content-Type: application/json`.",
      request: {
        params: WebhookIdParamsSchema,
        body: jsonBody(webhookChangeSchema(policy)),
      },
      responses: {
        200: jsonReply("The endpoint as changed.", WebhookSchema),
        ...errorResponses([400, 401, [404, WEBHOOK_NOT_FOUND], 413, 415, ...ANY_OPERATION]),
      },
    },
    deleteWebhook: {
      ...beta,
      scope: "webhooks:write",
      method: "delete",
      path: "/webhooks/{webhookId}",
      invalidIdMessage: WEBHOOK_NOT_FOUND,
      summary: "Delete a webhook endpoint",
      description:
        "Deletes the endpoint and its delivery history; nothing more is sent to it, including retries already scheduled. Another account's endpoint, or a `webhookId` that is not a valid identifier, gives 404.",
      request: { params: WebhookIdParamsSchema },
      responses: {
        204: deletedReply,
        ...oneRecordErrors([404, WEBHOOK_NOT_FOUND]),
      },
    },
    listDeliveries: {
      ...beta,
      scope: "webhooks:read",
      method: "get",
      path: "/webhooks/{webhookId}/deliveries",
      invalidIdMessage: WEBHOOK_NOT_FOUND,
      summary: "List an endpoint's deliveries",
      description:
        "The endpoint's deliveries, newest first: one per event (and per test send), with its status, every attempt (when, the endpoint's status or why there was none) and when the next is due. The body is the bare array; when more follow, `Link: <…>; rel=\"next\"` points at the next page. Another account's endpoint gives 404. Kept 30 days.",
      ...pagedListing({
        params: WebhookIdParamsSchema,
        query: ListDeliveriesQuerySchema,
        page: DeliveriesSchema,
        description: "A page of deliveries (possibly empty).",
        next: '<https://api.petstore.example.com/v1/webhooks/3/deliveries?limit=20&cursor=cDE6NDI>; rel="next"',
        errors: [[404, WEBHOOK_NOT_FOUND]],
      }),
    },
    testWebhook: {
      ...beta,
      scope: "webhooks:write",
      method: "post",
      path: "/webhooks/{webhookId}/test",
      invalidIdMessage: WEBHOOK_NOT_FOUND,
      summary: "Send a test event to an endpoint",
      description:
        "Sends a signed `webhook.test` event (`data`: `{ webhookId }`) to this endpoint only, now, as a delivery of its own: one attempt, listed with the others, never in the event feed and never counted toward the endpoint's health. A disabled endpoint records it as `skipped`. Takes no body.",
      request: { params: WebhookIdParamsSchema },
      responses: {
        202: jsonReply("The delivery, on its way.", DeliverySchema),
        ...oneRecordErrors([404, WEBHOOK_NOT_FOUND]),
      },
    },
    retryDelivery: {
      ...beta,
      scope: "webhooks:write",
      method: "post",
      path: "/webhooks/{webhookId}/deliveries/{deliveryId}/retry",
      invalidIdMessage: DELIVERY_NOT_FOUND,
      summary: "Send a delivery again",
      description:
        "Sends the delivery's event again, now, with the same `webhook-id`, as one more attempt recorded beneath it (whatever its status). Takes no body.",
      request: { params: DeliveryIdParamsSchema },
      responses: {
        202: jsonReply("The delivery, pending its new attempt.", DeliverySchema),
        ...oneRecordErrors([404, DELIVERY_NOT_FOUND]),
      },
    },
    recoverWebhook: {
      ...beta,
      scope: "webhooks:write",
      method: "post",
      path: "/webhooks/{webhookId}/recover",
      invalidIdMessage: WEBHOOK_NOT_FOUND,
      summary: "Send again what an endpoint missed",
      description:
        "Queues again, once each and oldest first, the endpoint's own deliveries since `since` that failed or were skipped (while it was paused or disabled): exactly the events it wanted when they were committed, whatever its types are now. Deliveries that succeeded or are on their way are not sent again; test events are not recovered. Events are kept 30 days. Send `Content-Type: application/json`.",
      request: {
        params: WebhookIdParamsSchema,
        body: jsonBody(RecoverSchema),
      },
      responses: {
        202: jsonReply("How many events were queued again.", RecoveredSchema),
        ...errorResponses([400, 401, [404, WEBHOOK_NOT_FOUND], 413, 415, ...ANY_OPERATION]),
      },
    },
    rotateWebhookSecret: {
      ...beta,
      scope: "webhooks:write",
      method: "post",
      path: "/webhooks/{webhookId}/rotate-secret",
      invalidIdMessage: WEBHOOK_NOT_FOUND,
      idempotent: true,
      summary: "Give an endpoint a new signing secret",
      description: `Gives the endpoint a new signing secret, shown in this reply only. Deliveries are signed with every secret of the endpoint younger than 24 hours since it was replaced, newest first, at most three (\`webhook-signature: v1,<new> v1,<older>\`): a receiver that verifies with the old secret keeps working while it switches, with no gap. Takes no body. ${REPLAYED_SECRET}`,
      request: { params: WebhookIdParamsSchema },
      responses: {
        200: jsonReply(
          "The endpoint, with its new signing secret (never shown again).",
          CreatedWebhookSchema,
          { "Idempotent-Replayed": idempotentReplayedHeader },
        ),
        ...errorResponses([400, 401, [404, WEBHOOK_NOT_FOUND], 422, ...ANY_OPERATION]),
      },
    },
  });
}
