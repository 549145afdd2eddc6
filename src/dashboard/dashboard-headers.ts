import type { MiddlewareHandler } from "hono";
import { toBase64 } from "../utils/base64url.ts";
import { sha256 } from "../utils/sha256.ts";
import { COPY_KEY_SCRIPT_PATH } from "./copy-key-script.ts";
import { STYLES } from "./pages/layout.tsx";

/** The CSP source of the pages' one style sheet; kept once found (a value, not a promise, may outlive a request). */
let styleSource: string | undefined;

async function stylesSource(): Promise<string> {
  styleSource ??= `'sha256-${toBase64(await sha256(STYLES))}'`;
  return styleSource;
}

/**
 * Nothing loads from elsewhere, the one script that may run is the
 * dashboard's own copy button (by its full address, so no other same-origin
 * script passes), the one style sheet is the pages' own (by its hash), forms
 * post only here, and no page is cached or framed.
 */
function contentSecurityPolicy(origin: string, styles: string): string {
  return [
    "default-src 'none'",
    `script-src ${origin}${COPY_KEY_SCRIPT_PATH}`,
    `style-src ${styles}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

export function dashboardHeaders(): MiddlewareHandler {
  return async function dashboardHeaders(c, next) {
    await next();
    c.res.headers.set("Cache-Control", "no-store");
    c.res.headers.set(
      "Content-Security-Policy",
      contentSecurityPolicy(new URL(c.req.url).origin, await stylesSource()),
    );
    c.res.headers.set("Referrer-Policy", "same-origin");
    c.res.headers.set("X-Frame-Options", "DENY");
  };
}
