import type { MiddlewareHandler } from "hono";

/** API replies are per-caller and must never be cached or sniffed into another type. */
export function apiResponseHeaders(): MiddlewareHandler {
  return async function apiResponseHeaders(c, next) {
    await next();
    c.res.headers.set("X-Content-Type-Options", "nosniff");
    // "/v1" itself too: it is answered (401 or 404) like any path under it.
    if (c.req.path === "/v1" || c.req.path.startsWith("/v1/")) {
      c.res.headers.set("Cache-Control", "no-store");
    }
  };
}
