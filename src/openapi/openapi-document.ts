import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import {
  type DeprecationNotice,
  deprecationLink,
  deprecationsIn,
  sunsetDate,
} from "../api/deprecation.ts";
import { withConditionalRead, withReadConsistency } from "../api/documented-reads.ts";
import { DOCS_PATH } from "../api/public-paths.ts";
import { errorResponses, KEY_REFUSALS, stringHeader } from "../api/responses.ts";
import { operationOf } from "../api/route-table.ts";
import { categoriesTag } from "../categories/categories.routes.ts";
import type { Config } from "../config.ts";
import { messages } from "../errors.ts";
import { eventsTag } from "../events/events.routes.ts";
import { storeTag } from "../orders/orders.routes.ts";
import { v1Routes } from "../routes/v1-routes.ts";
import { sheltersTag } from "../shelters/shelters.routes.ts";
import { deliveredWebhooks, webhooksTag } from "../webhooks/delivered-webhooks.ts";
import { compactDocument } from "./compact-document.ts";
import type { OpenApiDocument } from "./document-parts.ts";

/**
 * The configuration the document states: the public URLs, the webhook URL
 * rules, timeout and retry schedule, and the dates of each deprecation.
 */
type DocumentConfig = Pick<Config, "publicUrls" | "webhooks" | "deprecations">;

/**
 * A deprecated route as documented: its dates, its RFC 9745 / RFC 8594 marks
 * on every reply (errors included), and its 410 in its own words.
 */
function documentDeprecation(
  route: RouteConfig,
  notice: DeprecationNotice,
  config: DocumentConfig,
) {
  const { deprecatedAt, sunsetAt } = config.deprecations[notice.operationId];
  const marks = {
    Deprecation: stringHeader(
      "RFC 9745: the instant the deprecation took effect, as `@` and Unix seconds.",
      `@${Math.floor(deprecatedAt / 1000)}`,
      { pattern: "^@[0-9]+$" },
    ),
    Sunset: stringHeader(
      "RFC 8594: when the operation is removed (HTTP date).",
      sunsetDate(sunsetAt),
    ),
    Link: stringHeader(
      "The successor operation and this deprecation's documentation.",
      deprecationLink(notice, {}),
    ),
  };
  const responses: RouteConfig["responses"] = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] =
      "$ref" in response ? response : { ...response, headers: { ...response.headers, ...marks } };
  }
  const goneResponse = responses[410];
  const goneContent =
    goneResponse && "content" in goneResponse && goneResponse.content?.["application/json"];
  if (goneResponse && goneContent && !("$ref" in goneContent)) {
    const example = {
      code: "gone",
      message: messages.gone(sunsetDate(sunsetAt), notice.successor),
      status: 410,
    };
    responses[410] = {
      ...goneResponse,
      content: { "application/json": { ...goneContent, examples: { gone: { value: example } } } },
    };
  }
  const since = new Date(deprecatedAt).toISOString();
  const until = new Date(sunsetAt).toISOString();
  return {
    ...route,
    description:
      `${route.description ?? ""} Deprecated since ${since}; removed at ${until}.`.trim(),
    responses,
  };
}

/**
 * An operation as documented with the 403 every key may meet: without the
 * operation's scope, or from outside its ranges. An operation that documents
 * a 403 of its own (another account's record) lists those codes with it.
 */
function withKeyRefusals(route: RouteConfig): RouteConfig {
  if (route.responses[403]) return route;
  const refusals = errorResponses([
    {
      status: 403,
      codes: KEY_REFUSALS,
      description:
        "The key lacks this operation's scope, or is used from outside the address ranges it was made with.",
    },
  ]);
  return { ...route, responses: { ...route.responses, ...refusals } };
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
      "An API key (`ps_live_…` in production, `ps_test_…` elsewhere) sent as `Authorization: Bearer <key>`. Keys are made in the dashboard. Each operation's security requirement names the scope a key needs to call it.",
  });
  // The route tables the app serves are the only source of the operations.
  const tables = Object.values(v1Routes(config.webhooks.urlPolicy));
  const deprecations = deprecationsIn(tables);
  for (const table of tables) {
    for (const [operationId, route] of Object.entries(table)) {
      const operation = withReadConsistency(
        withConditionalRead(withKeyRefusals(operationOf(operationId, route))),
      );
      const notice = deprecations.find((candidate) => candidate.operationId === operationId);
      registry.registerPath(notice ? documentDeprecation(operation, notice, config) : operation);
    }
  }
  for (const webhook of deliveredWebhooks(config.webhooks)) registry.registerWebhook(webhook);
  const document = generator.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Pet Store API",
      version: "1.0.0",
      description:
        "Browse and manage animals available for adoption, adopt them through store orders, and follow every change through an event feed or webhooks. Every operation needs an API key as a bearer token. Every reply carries rate-limit headers (`X-RateLimit-*`, `RateLimit`, `RateLimit-Policy`) and `X-Request-Id`, and one that reached the database a `Consistency-Token` (send it back to read your writes); every error has the `Error` body. The `webhooks` section describes the requests this service sends to registered endpoints.",
      contact: {
        name: "Pet Store API",
        url: new URL(DOCS_PATH, config.publicUrls.production).href,
      },
    },
    servers: [
      { url: config.publicUrls.production, description: "Production" },
      { url: config.publicUrls.staging, description: "Staging" },
    ],
    tags: [
      {
        name: "pets",
        description:
          "Animals available for adoption: one catalogue every key reads; only the account whose key added an animal may change or delete it.",
      },
      categoriesTag,
      sheltersTag,
      storeTag,
      eventsTag,
      webhooksTag(config.webhooks),
    ],
    security: [{ bearerAuth: [] }],
  });
  return compactDocument(document);
}
