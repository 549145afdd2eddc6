import type { MiddlewareHandler } from "hono";
import { COPY_KEY_SCRIPT_PATH } from "./copy-key-script.ts";

/**
 * Nothing loads from elsewhere, the one script that may run is the
 * dashboard's own copy button (by its full address, so no other same-origin
 * script passes), forms post only here, and no page is cached or framed.
 */
function contentSecurityPolicy(origin: string): string {
  return [
    "default-src 'none'",
    `script-src ${origin}${COPY_KEY_SCRIPT_PATH}`,
    "style-src 'unsafe-inline'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

export function dashboardHeaders(): MiddlewareHandler {
  return async function dashboardHeaders(c, next) {
    await next();
    c.res.headers.set("Cache-Control", "no-store");
    c.res.headers.set("Content-Security-Policy", contentSecurityPolicy(new URL(c.req.url).origin));
    c.res.headers.set("Referrer-Policy", "same-origin");
    c.res.headers.set("X-Frame-Options", "DENY");
  };
}
