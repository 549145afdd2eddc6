import { type Handler, Hono } from "hono";
import { clientAddress } from "../api/client-address.ts";
import { API_PATH, DASHBOARD_PATH, DOCS_PATH, DOCUMENT_PATH } from "../api/public-paths.ts";
import type { Config } from "../config.ts";
import type { AppEnv } from "../context.ts";
import { rateLimitHeaders } from "../rate-limit/rate-limit-headers.ts";
import { oncePer } from "../utils/once-per.ts";
import type { OpenApiDocument } from "./document-parts.ts";
import { FrontPage } from "./front-page.tsx";
import { buildOpenApiDocument } from "./openapi-document.ts";
import { ReferencePage } from "./reference-page.tsx";

export const OPENAPI_PATH = `${API_PATH}${DOCUMENT_PATH}`;

/** The document depends only on the configuration, read once per isolate; so is the document. */
const documentFor = oncePer((config: Config): OpenApiDocument => buildOpenApiDocument(config));

/** The document as served from `origin`: that origin first among the servers, so "try it" reaches it. */
function servedFrom(document: OpenApiDocument, origin: string): OpenApiDocument {
  const here = `${origin}${API_PATH}`;
  const others = (document.servers ?? []).filter((server) => server.url !== here);
  return { ...document, servers: [{ url: here, description: "This server" }, ...others] };
}

/**
 * The reference runs only this Worker's script; its styles are injected at
 * run time (hence 'unsafe-inline' for styles only), and "try it" may call
 * this origin and the public servers the document lists.
 */
function referencePolicy(document: OpenApiDocument): string {
  const servers = (document.servers ?? []).map((server) => new URL(server.url).origin);
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${[...new Set(servers)].join(" ")}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * The OpenAPI document, as served from the origin asked. It reports the
 * caller's keyless budget without spending it, and is never refused.
 */
const serveDocument: Handler<AppEnv> = async (c) => {
  const clientIp = clientAddress(c);
  const budget = await c
    .get("services")
    .limiter.peekKeyless(clientIp)
    .catch(() => undefined);
  if (budget) c.set("replyHeaders", rateLimitHeaders(budget));
  return c.json(servedFrom(documentFor(c.get("services").config), new URL(c.req.url).origin));
};

/**
 * The public description of the API: a front page that links the rest, the
 * OpenAPI document (also at `/openapi.json`, where tools look for it) and a
 * browsable reference rendered from it. Mounted before the /v1
 * authentication: none of them needs a key.
 */
export function openapiRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get("/", (c) => {
    c.header("Content-Security-Policy", referencePolicy(documentFor(c.get("services").config)));
    return c.html(
      <FrontPage docsPath={DOCS_PATH} documentPath={OPENAPI_PATH} dashboardPath={DASHBOARD_PATH} />,
    );
  });
  routes.get(OPENAPI_PATH, serveDocument);
  routes.get(DOCUMENT_PATH, serveDocument);
  routes.get(DOCS_PATH, (c) => {
    c.header("Content-Security-Policy", referencePolicy(documentFor(c.get("services").config)));
    return c.html(<ReferencePage documentPath={OPENAPI_PATH} />);
  });
  return routes;
}
