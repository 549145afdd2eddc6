import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.ts";
import { ApiError, errorResponse, messages } from "../errors.ts";
import { servicesOrReport } from "../services.ts";

/**
 * Hands the request the isolate's services, so nothing after this reaches
 * into a binding. Without a valid configuration nothing can be answered
 * safely: the request gets a bland 500, the log the variables at fault.
 */
export function services(): MiddlewareHandler<AppEnv> {
  return async function services(c, next) {
    const built = servicesOrReport(c.env, { requestId: c.get("requestId") });
    if (!built) return errorResponse(c, new ApiError("internal_error", messages.internalError));
    c.set("services", built);
    await next();
  };
}
