import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { notFoundWhenIdInvalid, rejectInvalid } from "../validation.ts";
import {
  createWebhookHandler,
  deleteWebhookHandler,
  listDeliveriesHandler,
  listWebhooksHandler,
} from "./webhooks.handlers.ts";
import {
  createWebhookRoute,
  deleteWebhookRoute,
  listDeliveriesRoute,
  listWebhooksRoute,
} from "./webhooks.routes.ts";
import { WEBHOOK_NOT_FOUND } from "./webhooks.schemas.ts";

/**
 * The webhook endpoints' routes (beta), below the /v1 authentication and
 * limits. createWebhook's URL rules depend on the environment; its handler
 * checks them (the schema's pattern is documentation only), so the route
 * registered here carries the strict production rules.
 */
export function webhooksRoutes(): OpenAPIHono<AppEnv> {
  const endpoints = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  endpoints.post("/webhooks", jsonBody());
  endpoints.openapi(createWebhookRoute({ allowLoopbackHttp: false }), createWebhookHandler);
  endpoints.openapi(listWebhooksRoute, listWebhooksHandler);
  const webhookNotFoundWhenInvalid = notFoundWhenIdInvalid(WEBHOOK_NOT_FOUND);
  endpoints.openapi(deleteWebhookRoute, deleteWebhookHandler, webhookNotFoundWhenInvalid);
  endpoints.openapi(listDeliveriesRoute, listDeliveriesHandler, webhookNotFoundWhenInvalid);
  endpoints.all("/webhooks", methodNotAllowed(["GET", "HEAD", "POST"]));
  endpoints.all("/webhooks/:webhookId", methodNotAllowed(["DELETE"]));
  endpoints.all("/webhooks/:webhookId/deliveries", methodNotAllowed(["GET", "HEAD"]));
  return endpoints;
}
