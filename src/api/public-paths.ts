/*
 * The Worker's public paths, each typed once: the app mounts its routes at
 * them, and whatever builds an address, or treats replies by their path,
 * reads them here.
 */

/** The API's versioned routes. */
export const API_PATH = "/v1";
/** The OpenAPI document: under the API's path, and at the root for clients that look there. */
export const DOCUMENT_PATH = "/openapi.json";
/** The operator's endpoints, behind the operator token. */
export const OPERATOR_PATH = "/admin";
/** The account dashboard's pages: the one section the app's router matches apart. */
export const DASHBOARD_PATH = "/dashboard";
/** Where photos are served: their public addresses are `{origin}/photos/{id}`. */
export const PHOTOS_PATH = "/photos";
/** The API reference. */
export const DOCS_PATH = "/docs";
/** Whether the Worker answers at all. */
export const HEALTH_PATH = "/health";
