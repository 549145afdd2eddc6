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
  recoverWebhookHandler,
  retryDeliveryHandler,
  rotateWebhookSecretHandler,
  testWebhookHandler,
  updateWebhookHandler,
} from "./webhooks.handlers.ts";
import {
  createWebhookRoute,
  deleteWebhookRoute,
  listDeliveriesRoute,
  listWebhooksRoute,
  recoverWebhookRoute,
  retryDeliveryRoute,
  rotateWebhookSecretRoute,
  testWebhookRoute,
  updateWebhookRoute,
} from "./webhooks.routes.ts";
import { DELIVERY_NOT_FOUND, WEBHOOK_NOT_FOUND } from "./webhooks.schemas.ts";

/**
 * The webhook endpoints' routes (beta), below the /v1 authentication and
 * limits. The URL rules of createWebhook and updateWebhook depend on the
 * environment; their handlers check them (the schema's pattern is
 * documentation only), so the routes registered here carry the strict
 * production rules.
 */
export function webhooksRoutes(): OpenAPIHono<AppEnv> {
  const endpoints = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  const production = { allowLoopbackHttp: false };
  endpoints.post("/webhooks", jsonBody());
  endpoints.patch("/webhooks/:webhookId", jsonBody());
  endpoints.post("/webhooks/:webhookId/recover", jsonBody());
  endpoints.openapi(createWebhookRoute(production), createWebhookHandler);
  endpoints.openapi(listWebhooksRoute, listWebhooksHandler);
  const webhookNotFoundWhenInvalid = notFoundWhenIdInvalid(WEBHOOK_NOT_FOUND);
  endpoints.openapi(
    updateWebhookRoute(production),
    updateWebhookHandler,
    webhookNotFoundWhenInvalid,
  );
  endpoints.openapi(deleteWebhookRoute, deleteWebhookHandler, webhookNotFoundWhenInvalid);
  endpoints.openapi(listDeliveriesRoute, listDeliveriesHandler, webhookNotFoundWhenInvalid);
  endpoints.openapi(testWebhookRoute, testWebhookHandler, webhookNotFoundWhenInvalid);
  endpoints.openapi(recoverWebhookRoute, recoverWebhookHandler, webhookNotFoundWhenInvalid);
  endpoints.openapi(
    rotateWebhookSecretRoute,
    rotateWebhookSecretHandler,
    webhookNotFoundWhenInvalid,
  );
  endpoints.openapi(
    retryDeliveryRoute,
    retryDeliveryHandler,
    notFoundWhenIdInvalid(DELIVERY_NOT_FOUND),
  );
  endpoints.all("/webhooks", methodNotAllowed(["GET", "HEAD", "POST"]));
  endpoints.all("/webhooks/:webhookId", methodNotAllowed(["PATCH", "DELETE"]));
  endpoints.all("/webhooks/:webhookId/deliveries", methodNotAllowed(["GET", "HEAD"]));
  endpoints.all("/webhooks/:webhookId/test", methodNotAllowed(["POST"]));
  endpoints.all("/webhooks/:webhookId/recover", methodNotAllowed(["POST"]));
  endpoints.all("/webhooks/:webhookId/rotate-secret", methodNotAllowed(["POST"]));
  endpoints.all("/webhooks/:webhookId/deliveries/:deliveryId/retry", methodNotAllowed(["POST"]));
  return endpoints;
}
