import type { RouteHandler } from "@hono/zod-openapi";
import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink } from "../api/pagination.ts";
import type { AppEnv } from "../env.ts";
import { ApiError, messages } from "../errors.ts";
import { generateWebhookSecret } from "./webhook-signature.ts";
import { isAllowedWebhookUrl, webhookUrlRules } from "./webhook-url.ts";
import {
  deleteWebhook,
  insertWebhookUnderCap,
  listDeliveries,
  listWebhooks,
} from "./webhooks.queries.ts";
import type {
  createWebhookRoute,
  deleteWebhookRoute,
  listDeliveriesRoute,
  listWebhooksRoute,
} from "./webhooks.routes.ts";
import { MAX_WEBHOOKS, WEBHOOK_NOT_FOUND } from "./webhooks.schemas.ts";

export const createWebhookHandler: RouteHandler<
  ReturnType<typeof createWebhookRoute>,
  AppEnv
> = async (c) => {
  const { url, types } = c.req.valid("json");
  const { db, config } = c.var.services;
  const { urlPolicy } = config.webhooks;
  // The rules depend on the environment, so they are checked here rather than by the schema.
  if (!isAllowedWebhookUrl(url, urlPolicy)) {
    const detail = { path: "url", message: webhookUrlRules(urlPolicy) };
    throw new ApiError("invalid_request", messages.invalidRequest(`url: ${detail.message}`), {
      details: [detail],
    });
  }
  const secret = generateWebhookSecret();
  const outcome = await insertWebhookUnderCap(db, {
    apiKeyHash: c.var.apiKey.hash,
    url,
    types,
    secret,
    now: Date.now(),
  });
  if (outcome.kind === "limit_reached") {
    throw new ApiError(
      "limit_reached",
      messages.limitReached(MAX_WEBHOOKS, "webhook endpoints", "delete one"),
    );
  }
  return c.json({ ...outcome.webhook, secret }, 201);
};

export const listWebhooksHandler: RouteHandler<typeof listWebhooksRoute, AppEnv> = async (c) => {
  return c.json(await listWebhooks(c.var.services.db, c.var.apiKey.hash), 200);
};

export const deleteWebhookHandler: RouteHandler<typeof deleteWebhookRoute, AppEnv> = async (c) => {
  const deleted = await deleteWebhook(
    c.var.services.db,
    c.var.apiKey.hash,
    c.req.valid("param").webhookId,
  );
  if (!deleted) throw new ApiError("not_found", WEBHOOK_NOT_FOUND);
  return c.body(null, 204);
};

export const listDeliveriesHandler: RouteHandler<typeof listDeliveriesRoute, AppEnv> = async (
  c,
) => {
  const { webhookId } = c.req.valid("param");
  const { limit, cursor } = c.req.valid("query");
  const page = await listDeliveries(c.var.services.db, {
    apiKeyHash: c.var.apiKey.hash,
    webhookId,
    afterId: cursor === undefined ? 0 : decodeCursor(cursor),
    limit,
  });
  if (!page) throw new ApiError("not_found", WEBHOOK_NOT_FOUND);
  const last = page.deliveries.at(-1);
  if (page.hasMore && last) c.header("Link", nextPageLink(c.req.url, { limit }, last.id));
  return c.json(page.deliveries, 200);
};
