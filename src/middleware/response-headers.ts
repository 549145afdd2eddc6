import type { MiddlewareHandler } from "hono";

/** Path prefixes whose replies are per-caller: the API, and the operator's (keys, invite links). */
const UNCACHEABLE = ["/v1", "/admin"];

/** API replies are per-caller and must never be cached or sniffed into another type. */
export function apiResponseHeaders(): MiddlewareHandler {
  return async function apiResponseHeaders(c, next) {
    await next();
    c.res.headers.set("X-Content-Type-Options", "nosniff");
    // The prefix itself too: "/v1" is answered (401 or 404) like any path under it.
    const path = c.req.path;
    if (UNCACHEABLE.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) {
      c.res.headers.set("Cache-Control", "no-store");
    }
  };
}
