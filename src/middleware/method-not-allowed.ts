import type { Handler } from "hono";
import type { AppEnv } from "../env.ts";
import { ApiError, messages } from "../errors.ts";

/** Catch-all for a known path reached with a method it does not serve. */
export function methodNotAllowed(allowed: readonly string[]): Handler<AppEnv> {
  const allow = allowed.join(", ");
  return function methodNotAllowed(c) {
    throw new ApiError("method_not_allowed", messages.methodNotAllowed(c.req.method, allow), {
      headers: { Allow: allow },
    });
  };
}
