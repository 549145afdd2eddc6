import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink } from "../api/pagination.ts";
import type { RouteHandlers } from "../api/route-router.ts";
import { ApiError, messages } from "../errors.ts";
import { claimOf, replyOf } from "../idempotency/idempotent-request.ts";
import type { Services } from "../services.ts";
import { changeWebhook } from "./webhook-lifecycle.ts";
import { recoverMissed } from "./webhook-recovery.ts";
import { generateWebhookSecret } from "./webhook-signature.ts";
import { isAllowedWebhookUrl, type WebhookUrlPolicy, webhookUrlRules } from "./webhook-url.ts";
import {
  deleteWebhook,
  findWebhook,
  insertWebhookOnce,
  insertWebhookUnderCap,
  listWebhooks,
  type NewEndpoint,
  rotateSecret,
} from "./webhooks.queries.ts";
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

/** Refuses a request for an endpoint that is not the caller's account's. */
async function ownEndpoint(services: Services, apiKeyHash: string, id: number): Promise<void> {
  if (!(await findWebhook(services.db, apiKeyHash, id))) {
    throw new ApiError("not_found", WEBHOOK_NOT_FOUND);
  }
}

const limitReached = () =>
  new ApiError(
    "limit_reached",
    messages.limitReached(MAX_WEBHOOKS, "webhook endpoints", "delete one"),
  );

/** Registers the endpoint, once per Idempotency-Key when one is sent: every retry is answered as the first, secret included. */
async function register(
  services: Services,
  endpoint: NewEndpoint,
  idempotencyKey: string | undefined,
) {
  if (idempotencyKey === undefined) {
    const outcome = await insertWebhookUnderCap(services.db, endpoint);
    if (outcome.kind === "limit_reached") throw limitReached();
    return { kind: "made" as const, body: { ...outcome.webhook, secret: endpoint.secret } };
  }
  const fields = [endpoint.url, endpoint.types];
  const claim = await claimOf(
    endpoint.apiKeyHash,
    idempotencyKey,
    "createWebhook",
    fields,
    endpoint.now,
  );
  const outcome = await insertWebhookOnce(services.db, endpoint, claim);
  if (outcome.kind === "limit_reached") throw limitReached();
  return outcome;
}

/** The webhook endpoints' handlers, one per route of the table. */
export const webhookHandlers = {
  createWebhook: async (c) => {
    const { url, types } = c.req.valid("json");
    const idempotencyKey = c.req.valid("header")["Idempotency-Key"];
    const services = c.var.services;
    checkUrl(url, services.config.webhooks.urlPolicy);
    const endpoint = {
      apiKeyHash: c.var.apiKey.hash,
      url,
      types,
      secret: generateWebhookSecret(),
      now: Date.now(),
    };
    const outcome = await register(services, endpoint, idempotencyKey);
    const { body, replayed } = replyOf(outcome, 201, CreatedWebhookSchema);
    if (replayed) c.header("Idempotent-Replayed", "true");
    return c.json(body, 201);
  },

  rotateWebhookSecret: async (c) => {
    const { webhookId } = c.req.valid("param");
    const idempotencyKey = c.req.valid("header")["Idempotency-Key"];
    const apiKeyHash = c.var.apiKey.hash;
    const now = Date.now();
    const claim =
      idempotencyKey === undefined
        ? undefined
        : await claimOf(apiKeyHash, idempotencyKey, "rotateWebhookSecret", [webhookId], now);
    const outcome = await rotateSecret(
      c.var.services.db,
      { apiKeyHash, id: webhookId, secret: generateWebhookSecret(), now },
      claim,
    );
    if (!outcome) throw new ApiError("not_found", WEBHOOK_NOT_FOUND);
    const { body, replayed } = replyOf(outcome, 200, CreatedWebhookSchema);
    if (replayed) c.header("Idempotent-Replayed", "true");
    return c.json(body, 200);
  },

  listWebhooks: async (c) => {
    return c.json(await listWebhooks(c.var.services.db, c.var.apiKey.hash), 200);
  },

  updateWebhook: async (c) => {
    const { webhookId } = c.req.valid("param");
    const change = c.req.valid("json");
    const services = c.var.services;
    if (change.url !== undefined) checkUrl(change.url, services.config.webhooks.urlPolicy);
    const webhook = await changeWebhook(services, c.var.apiKey.hash, webhookId, change);
    if (!webhook) throw new ApiError("not_found", WEBHOOK_NOT_FOUND);
    return c.json(webhook, 200);
  },

  deleteWebhook: async (c) => {
    const { webhookId } = c.req.valid("param");
    const { db, webhookEndpoints } = c.var.services;
    const deleted = await deleteWebhook(db, c.var.apiKey.hash, webhookId);
    if (!deleted) throw new ApiError("not_found", WEBHOOK_NOT_FOUND);
    // If the object cannot be told now, its next alarm finds the endpoint gone and forgets it then.
    await webhookEndpoints.forget(webhookId).catch(() => undefined);
    return c.body(null, 204);
  },

  listDeliveries: async (c) => {
    const { webhookId } = c.req.valid("param");
    const { limit, cursor } = c.req.valid("query");
    const services = c.var.services;
    await ownEndpoint(services, c.var.apiKey.hash, webhookId);
    const page = await services.webhookEndpoints.deliveries(webhookId, {
      beforeId: cursor === undefined ? undefined : decodeCursor(cursor),
      limit,
    });
    const last = page.deliveries.at(-1);
    if (page.hasMore && last) c.header("Link", nextPageLink(c.req.url, { limit }, last.id));
    return c.json(page.deliveries, 200);
  },

  testWebhook: async (c) => {
    const { webhookId } = c.req.valid("param");
    const services = c.var.services;
    await ownEndpoint(services, c.var.apiKey.hash, webhookId);
    return c.json(await services.webhookEndpoints.sendTest(webhookId), 202);
  },

  retryDelivery: async (c) => {
    const { webhookId, deliveryId } = c.req.valid("param");
    const services = c.var.services;
    await ownEndpoint(services, c.var.apiKey.hash, webhookId);
    const delivery = await services.webhookEndpoints.retry(webhookId, deliveryId);
    if (!delivery) throw new ApiError("not_found", DELIVERY_NOT_FOUND);
    return c.json(delivery, 202);
  },

  recoverWebhook: async (c) => {
    const { webhookId } = c.req.valid("param");
    const { since } = c.req.valid("json");
    const services = c.var.services;
    await ownEndpoint(services, c.var.apiKey.hash, webhookId);
    const queued = await recoverMissed(services, webhookId, Date.parse(since));
    return c.json({ queued }, 202);
  },
} satisfies RouteHandlers<ReturnType<typeof webhookRoutes>>;
