import type { Handler } from "hono";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";

/** Catch-all for a known path reached with a method it does not serve. */
export function methodNotAllowed(allowed: readonly string[]): Handler<AppEnv> {
  const allow = allowed.join(", ");
  return function methodNotAllowed(c) {
    throw new ApiError("method_not_allowed", `${c.req.method} is not allowed here; use ${allow}.`, {
      headers: { Allow: allow },
    });
  };
}
