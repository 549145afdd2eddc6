import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import { type DeprecationNotice, scheduleOf, sunsetDate } from "../api/deprecation.ts";
import { type ResponseHeaders, withHeaders } from "../api/responses.ts";
import type { Config, DeprecationSchedule } from "../config.ts";
import { messages } from "../errors.ts";
import { eventsOperations, eventsTag } from "../events/events.routes.ts";
import { ordersOperations, storeTag } from "../orders/orders.routes.ts";
import { petsDeprecations, petsOperations } from "../pets/pets.routes.ts";
import type { WebhookSettings } from "../webhooks/webhook-settings.ts";
import { deliveredWebhooks, webhooksOperations, webhooksTag } from "../webhooks/webhooks.routes.ts";

/**
 * The operations the document describes; the routes that validate requests
 * are the only source. createWebhook states the URL rules of the environment.
 */
function documentedRoutes(webhooks: WebhookSettings): readonly RouteConfig[] {
  return [
    ...petsOperations,
    ...ordersOperations,
    ...eventsOperations,
    ...webhooksOperations(webhooks),
  ];
}

const deprecations: readonly DeprecationNotice[] = [...petsDeprecations];

/**
 * The configuration the document states: the public URLs, the webhook URL
 * rules, timeout and retry schedule, and the dates of each deprecation.
 */
export type DocumentConfig = Pick<Config, "publicUrls" | "webhooks" | "deprecations">;

export type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

/** RFC 9745 / RFC 8594 marks carried by every reply of a deprecated operation, errors included. */
function deprecationHeaders(
  notice: DeprecationNotice,
  schedule: DeprecationSchedule,
): ResponseHeaders {
  return {
    Deprecation: {
      description: "RFC 9745: the instant the deprecation took effect, as `@` and Unix seconds.",
      required: true,
      schema: { type: "string", pattern: "^@[0-9]+$" },
      example: `@${Math.floor(schedule.deprecatedAt / 1000)}`,
    },
    Sunset: {
      description: "RFC 8594: when the operation is removed (HTTP date).",
      required: true,
      schema: { type: "string" },
      example: sunsetDate(schedule),
    },
    Link: {
      description: "The successor operation and this deprecation's documentation.",
      required: true,
      schema: { type: "string" },
      example: `<${notice.successor}>; rel="successor-version", <${notice.documentation}>; rel="deprecation"`,
    },
  };
}

/** A deprecated route as documented: its dates, its marks on every reply, and its 410 in its own words. */
function documentDeprecation(
  route: RouteConfig,
  notice: DeprecationNotice,
  schedule: DeprecationSchedule,
): RouteConfig {
  const since = new Date(schedule.deprecatedAt).toISOString();
  const until = new Date(schedule.sunsetAt).toISOString();
  const gone = messages.gone(sunsetDate(schedule), notice.successor);
  const responses = withHeaders(route.responses, deprecationHeaders(notice, schedule));
  const goneResponse = responses[410];
  const goneContent =
    goneResponse && "content" in goneResponse && goneResponse.content?.["application/json"];
  if (goneResponse && goneContent && !("$ref" in goneContent)) {
    const example = { code: "gone", message: gone, status: 410 };
    responses[410] = {
      ...goneResponse,
      content: { "application/json": { ...goneContent, examples: { gone: { value: example } } } },
    };
  }
  return {
    ...route,
    description:
      `${route.description ?? ""} Deprecated since ${since}; removed at ${until}.`.trim(),
    responses,
  };
}

/**
 * The OpenAPI 3.1 description of /v1, generated from the route definitions
 * and their Zod schemas. It imports no handler, binding or Durable Object,
 * so the Worker serves it and plain Node can print it from the same code.
 */
export function buildOpenApiDocument(config: DocumentConfig): OpenApiDocument {
  const generator = new OpenAPIHono();
  const registry = generator.openAPIRegistry;
  registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description:
      "An API key (`ps_live_…` in production, `ps_test_…` elsewhere) sent as `Authorization: Bearer <key>`. Keys are made in the dashboard.",
  });
  for (const route of documentedRoutes(config.webhooks)) {
    const notice = deprecations.find(
      (candidate) =>
        candidate.path === route.path && candidate.method === route.method.toUpperCase(),
    );
    registry.registerPath(
      notice ? documentDeprecation(route, notice, scheduleOf(notice, config)) : route,
    );
  }
  for (const webhook of deliveredWebhooks(config.webhooks)) registry.registerWebhook(webhook);
  return generator.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Pet Store API",
      version: "1.0.0",
      description:
        "Browse and manage animals available for adoption, adopt them through store orders, and follow every change through an event feed or webhooks. Every operation needs an API key as a bearer token. Every reply carries rate-limit headers (`X-RateLimit-*`, `RateLimit`, `RateLimit-Policy`) and `X-Request-Id`; every error has the `Error` body. The `webhooks` section describes the requests this service sends to registered endpoints.",
      contact: { name: "Pet Store API", url: new URL("/docs", config.publicUrls.production).href },
    },
    servers: [
      { url: config.publicUrls.production, description: "Production" },
      { url: config.publicUrls.staging, description: "Staging" },
    ],
    tags: [
      { name: "pets", description: "Animals available for adoption." },
      storeTag,
      eventsTag,
      webhooksTag(config.webhooks),
    ],
    security: [{ bearerAuth: [] }],
  });
}
