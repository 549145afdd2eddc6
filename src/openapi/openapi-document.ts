import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import { createPetRoute, getPetRoute, listPetsRoute } from "../pets/pets.routes.ts";

/** The operations the document describes; the routes that validate requests are the only source. */
export const documentedRoutes: readonly RouteConfig[] = [
  listPetsRoute,
  createPetRoute,
  getPetRoute,
];

export interface DocumentServers {
  productionUrl: string;
  stagingUrl: string;
}

export type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

/**
 * The OpenAPI 3.1 description of /v1, generated from the route definitions
 * and their Zod schemas. It imports no handler, binding or Durable Object,
 * so the Worker serves it and plain Node can print it from the same code.
 */
export function buildOpenApiDocument(servers: DocumentServers): OpenApiDocument {
  const generator = new OpenAPIHono();
  const registry = generator.openAPIRegistry;
  registry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description:
      "An API key (`ps_live_…` in production, `ps_test_…` elsewhere) sent as `Authorization: Bearer <key>`. Keys are made in the dashboard.",
  });
  // As OpenAPIHono#openapi does: middleware and `hide` are for serving, not for the document.
  for (const { middleware: _middleware, hide: _hide, ...route } of documentedRoutes) {
    registry.registerPath(route);
  }
  return generator.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Pet Store API",
      version: "1.0.0",
      description:
        "Browse and manage animals available for adoption. Every operation needs an API key as a bearer token. Every reply carries rate-limit headers (`X-RateLimit-*`, `RateLimit`, `RateLimit-Policy`) and `X-Request-Id`; every error has the `Error` body.",
    },
    servers: [
      { url: servers.productionUrl, description: "Production" },
      { url: servers.stagingUrl, description: "Staging" },
    ],
    tags: [{ name: "pets", description: "Animals available for adoption." }],
    security: [{ bearerAuth: [] }],
  });
}

/** The servers as the Worker's wrangler.toml variables name them. */
export function serversOf(env: { PRODUCTION_URL: string; STAGING_URL: string }): DocumentServers {
  return { productionUrl: env.PRODUCTION_URL, stagingUrl: env.STAGING_URL };
}
