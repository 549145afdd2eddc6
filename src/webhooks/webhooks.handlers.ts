import { keyOwner, type Owner } from "../accounts/owner.ts";
import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink, pageReply } from "../api/pagination.ts";
import type { RouteHandlers } from "../api/route-handlers.ts";
import { ApiError, messages } from "../errors.ts";
import type { EventTypeSelector } from "../events/events.schemas.ts";
import { replyOf } from "../idempotency/idempotent-request.ts";
import { checkScopes } from "../middleware/require-scope.ts";
import type { Services } from "../services.ts";
import {
  isAllowedWebhookUrl,
  type WebhookUrlPolicy,
  webhookUrlRules,
} from "../webhook-urls/webhook-url.ts";
import {
  changeWebhook,
  deleteWebhook,
  registerWebhook,
  rotateWebhookSecret,
} from "./endpoint-changes.ts";
import { findWebhook, listWebhooks } from "./webhooks.queries.ts";
import type { webhookRoutes } from "./webhooks.routes.ts";
import {
  CreatedWebhookSchema,
  DELIVERY_NOT_FOUND,
  MAX_WEBHOOKS,
  WEBHOOK_NOT_FOUND,
} from "./webhooks.schemas.ts";

/** The URL rules depend on the environment, so they are checked here rather than by the schema. */
function checkUrl(url: string, policy: WebhookUrlPolicy): void {
  if (isAllowedWebhookUrl(url, policy)) return;
  const detail = { path: "url", message: webhookUrlRules(policy) };
  throw new ApiError("invalid_request", messages.invalidRequest(`url: ${detail.message}`), {
    details: [detail],
  });
}

/** An endpoint's `order.*` types need a key that may read orders, besides the route's scope. */
function checkOrderTypes(
  apiKey: Parameters<typeof checkScopes>[0],
  types: EventTypeSelector[] | undefined,
): void {
  if (types?.some((type) => type.startsWith("order."))) {
    checkScopes(apiKey, ["webhooks:write", "orders:read"]);
  }
}

/** Refuses a request for an endpoint that is not the caller's account's. */
async function ownEndpoint(services: Services, owner: Owner, id: number): Promise<void> {
  if (!(await findWebhook(services.db, owner, id))) {
    throw new ApiError("not_found", WEBHOOK_NOT_FOUND);
  }
}

/** The webhook endpoints' handlers, one per route of the table. */
export const webhookHandlers = {
  createWebhook: async (c) => {
    const { url, types } = c.req.valid("json");
    const services = c.get("services");
    checkOrderTypes(c.get("apiKey"), types);
    checkUrl(url, services.config.webhooks.urlPolicy);
    const outcome = await registerWebhook(services, {
      changer: { kind: "key", apiKeyHash: c.get("apiKey").hash, claim: c.get("claim") },
      url,
      types,
      now: Date.now(),
    });
    if (outcome.kind === "limit_reached") {
      throw new ApiError(
        "limit_reached",
        messages.limitReached(MAX_WEBHOOKS, "webhook endpoints", "delete one"),
      );
    }
    return c.json(replyOf(outcome, 201, CreatedWebhookSchema), 201);
  },

  rotateWebhookSecret: async (c) => {
    const { webhookId } = c.req.valid("param");
    const outcome = await rotateWebhookSecret(c.get("services"), {
      changer: { kind: "key", apiKeyHash: c.get("apiKey").hash, claim: c.get("claim") },
      id: webhookId,
      now: Date.now(),
    });
    if (!outcome) throw new ApiError("not_found", WEBHOOK_NOT_FOUND);
    return c.json(replyOf(outcome, 200, CreatedWebhookSchema), 200);
  },

  listWebhooks: async (c) => {
    return c.json(await listWebhooks(c.get("services").db, keyOwner(c.get("apiKey"))), 200);
  },

  getWebhook: async (c) => {
    const { webhookId } = c.req.valid("param");
    const webhook = await findWebhook(c.get("services").db, keyOwner(c.get("apiKey")), webhookId);
    if (!webhook) throw new ApiError("not_found", WEBHOOK_NOT_FOUND);
    return c.json(webhook, 200);
  },

  updateWebhook: async (c) => {
    const { webhookId } = c.req.valid("param");
    const change = c.req.valid("json");
    const services = c.get("services");
    checkOrderTypes(c.get("apiKey"), change.types);
    if (change.url !== undefined) checkUrl(change.url, services.config.webhooks.urlPolicy);
    const webhook = await changeWebhook(services, keyOwner(c.get("apiKey")), webhookId, change);
    if (!webhook) throw new ApiError("not_found", WEBHOOK_NOT_FOUND);
    return c.json(webhook, 200);
  },

  deleteWebhook: async (c) => {
    const { webhookId } = c.req.valid("param");
    const deleted = await deleteWebhook(c.get("services"), keyOwner(c.get("apiKey")), webhookId);
    if (!deleted) throw new ApiError("not_found", WEBHOOK_NOT_FOUND);
    return c.body(null, 204);
  },

  listDeliveries: async (c) => {
    const { webhookId } = c.req.valid("param");
    const { limit, cursor } = c.req.valid("query");
    const services = c.get("services");
    await ownEndpoint(services, keyOwner(c.get("apiKey")), webhookId);
    const page = await services.webhookEndpoints.deliveries(webhookId, {
      beforeId: cursor === undefined ? undefined : decodeCursor(cursor),
      limit,
    });
    const last = page.deliveries.at(-1);
    const next = page.hasMore && last ? nextPageLink(c.req.url, { limit }, last.id) : undefined;
    return pageReply(c, page.deliveries, next);
  },

  testWebhook: async (c) => {
    const { webhookId } = c.req.valid("param");
    const services = c.get("services");
    await ownEndpoint(services, keyOwner(c.get("apiKey")), webhookId);
    return c.json(await services.webhookEndpoints.sendTest(webhookId), 202);
  },

  retryDelivery: async (c) => {
    const { webhookId, deliveryId } = c.req.valid("param");
    const services = c.get("services");
    await ownEndpoint(services, keyOwner(c.get("apiKey")), webhookId);
    const delivery = await services.webhookEndpoints.retry(webhookId, deliveryId);
    if (!delivery) throw new ApiError("not_found", DELIVERY_NOT_FOUND);
    return c.json(delivery, 202);
  },

  recoverWebhook: async (c) => {
    const { webhookId } = c.req.valid("param");
    const { since } = c.req.valid("json");
    const services = c.get("services");
    await ownEndpoint(services, keyOwner(c.get("apiKey")), webhookId);
    const queued = await services.webhookEndpoints.recover(webhookId, Date.parse(since));
    return c.json({ queued }, 202);
  },
} satisfies RouteHandlers<ReturnType<typeof webhookRoutes>>;
