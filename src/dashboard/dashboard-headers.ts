import type { MiddlewareHandler } from "hono";

/** No script may run, nothing loads from elsewhere, forms post only here, and no page is cached or framed. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export function dashboardHeaders(): MiddlewareHandler {
  return async function dashboardHeaders(c, next) {
    await next();
    c.res.headers.set("Cache-Control", "no-store");
    c.res.headers.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.res.headers.set("Referrer-Policy", "same-origin");
    c.res.headers.set("X-Frame-Options", "DENY");
  };
}
