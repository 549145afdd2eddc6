import { Scalar } from "@scalar/hono-api-reference";
import { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { buildOpenApiDocument, type OpenApiDocument } from "./openapi-document.ts";

export const OPENAPI_PATH = "/v1/openapi.json";
export const DOCS_PATH = "/docs";

/** The reference page's script, pinned so the page does not change under us. */
const SCALAR_BUNDLE = "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.72.1";

const documents = new WeakMap<Env, OpenApiDocument>();

/** The document depends only on the environment's variables; build it once per isolate. */
function documentFor(env: Env): OpenApiDocument {
  let document = documents.get(env);
  if (!document) {
    document = buildOpenApiDocument(env);
    documents.set(env, document);
  }
  return document;
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
