import type { Hono, MiddlewareHandler } from "hono";
import { methodNotAllowed as allowedMethodsOnly } from "hono/method-not-allowed";
import type { AppEnv } from "../context.ts";
import { ApiError, errorResponse, messages } from "../errors.ts";

/** The order methods are listed in, whatever order their routes were registered in. */
const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/**
 * Answers a known path reached with a method none of its routes serves:
 * 405 with the Error body and `Allow`, the methods read from the app's
 * routes. Any other 404 (an unknown path, or one a handler gave) stays.
 */
export function methodNotAllowed(app: Hono<AppEnv>): MiddlewareHandler<AppEnv> {
  return allowedMethodsOnly({
    app,
    onMethodNotAllowed: (c, methods) => {
      const allow = methods
        .toSorted((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b))
        .join(", ");
      const error = new ApiError(
        "method_not_allowed",
        messages.methodNotAllowed(c.req.method, allow),
        {
          headers: { Allow: allow },
        },
      );
      return errorResponse(c, error);
    },
  });
}
