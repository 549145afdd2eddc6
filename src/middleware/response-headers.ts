import type { MiddlewareHandler } from "hono";

/** API replies are per-caller and must never be cached or sniffed into another type. */
export function apiResponseHeaders(): MiddlewareHandler {
  return async function apiResponseHeaders(c, next) {
    await next();
    c.res.headers.set("X-Content-Type-Options", "nosniff");
    if (c.req.path.startsWith("/v1/")) c.res.headers.set("Cache-Control", "no-store");
  };
}
