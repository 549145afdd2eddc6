import { Scalar } from "@scalar/hono-api-reference";
import { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { buildOpenApiDocument, type OpenApiDocument, serversOf } from "./openapi-document.ts";

export const OPENAPI_PATH = "/v1/openapi.json";
export const DOCS_PATH = "/docs";

/** The reference page's script, pinned so the page does not change under us. */
const SCALAR_BUNDLE = "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1";

let cached: { key: string; document: OpenApiDocument } | undefined;

/** The document depends only on the environment's URLs; build it once per isolate. */
function documentFor(env: Env): OpenApiDocument {
  const servers = serversOf(env);
  const key = `${servers.productionUrl} ${servers.stagingUrl}`;
  if (cached?.key !== key) cached = { key, document: buildOpenApiDocument(servers) };
  return cached.document;
}

/**
 * The public description of the API: the OpenAPI document and a browsable
 * reference (Scalar, rendered in the browser from the document). Mount it
 * before the /v1 auth middleware: neither needs a key.
 */
export function openapiRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(OPENAPI_PATH, (c) => c.json(documentFor(c.env)));
  routes.all(OPENAPI_PATH, methodNotAllowed(["GET", "HEAD"]));
  routes.get(
    DOCS_PATH,
    Scalar<AppEnv>({ url: OPENAPI_PATH, pageTitle: "Pet Store API reference", cdn: SCALAR_BUNDLE }),
  );
  routes.all(DOCS_PATH, methodNotAllowed(["GET", "HEAD"]));
  return routes;
}
