import type { Hono, MiddlewareHandler } from "hono";
import { methodNotAllowed as allowedMethodsOnly } from "hono/method-not-allowed";
import type { AppEnv } from "../context.ts";
import { ApiError, errorResponse, messages } from "../errors.ts";

/** The order methods are listed in, whatever order their routes were registered in. */
const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/** The 405 for a method none of a path's routes serves, `Allow` naming those they serve. */
export function methodNotAllowedError(method: string, served: readonly string[]): ApiError {
  const allow = served
    .toSorted((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b))
    .join(", ");
  return new ApiError("method_not_allowed", messages.methodNotAllowed(method, allow), {
    headers: { Allow: allow },
  });
}

/**
 * Answers a known path reached with a method none of its routes serves:
 * 405 with the Error body and `Allow`, the methods read from the app's
 * routes. Any other 404 (an unknown path, or one a handler gave) stays.
 */
export function methodNotAllowed(app: Hono<AppEnv>): MiddlewareHandler<AppEnv> {
  return allowedMethodsOnly({
    app,
    onMethodNotAllowed: (c, methods) =>
      errorResponse(c, methodNotAllowedError(c.req.method, methods)),
  });
}
