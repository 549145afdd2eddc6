import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { log } from "../logging.ts";

/**
 * Names the request (the incoming cf-ray, else a fresh UUID), returns that
 * name in X-Request-Id, and writes one JSON log line when the reply is ready.
 */
export function requestContext(): MiddlewareHandler<AppEnv> {
  return async function requestContext(c, next) {
    const started = performance.now();
    const requestId = c.req.header("cf-ray") ?? crypto.randomUUID();
    c.set("requestId", requestId);
    await next();
    c.res.headers.set("X-Request-Id", requestId);
    const status = c.res.status;
    // Every 500 is logged, so a request refused for its configuration never reads it here.
    if (status < 500 && c.var.services.config.logLevel === "warn") return;
    const caller = c.get("caller");
    log(status >= 500 ? "error" : "info", "request", {
      requestId,
      method: c.req.method,
      route: c.req.routePath,
      status,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      key: caller && caller.kind !== "anonymous" ? `…${caller.key.lastFour}` : undefined,
    });
  };
}
