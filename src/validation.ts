import type { Hook } from "@hono/zod-openapi";
import type { AppEnv } from "./context.ts";
import { ApiError, type ErrorDetail, messages } from "./errors.ts";

/**
 * Turns a failed Zod validation into the 400 Error body with one detail per
 * invalid field. Zod reports every failed check, so one bad value can yield
 * two near-identical lines (an empty name is also blank; 2^53 breaks both int
 * and max): the first says all a client needs about that field.
 */
export const rejectInvalid: Hook<unknown, AppEnv, string, undefined> = (result) => {
  if (result.success) return;
  const details = result.error.issues.flatMap((issue): ErrorDetail[] => {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: base ? `${base}.${key}` : key,
        message: "Unknown field",
      }));
    }
    const target = result.target === "json" ? "body" : result.target;
    return [{ path: base || target, message: issue.message }];
  });
  const seen = new Set<string>();
  const first = details.filter((detail) => !seen.has(detail.path) && seen.add(detail.path));
  const summary = first.map((detail) => `${detail.path}: ${detail.message}`).join("; ");
  throw new ApiError("invalid_request", messages.invalidRequest(summary), { details: first });
};

/**
 * For a route whose path names one resource: a malformed id names nothing,
 * so it is simply not found (`message`); any other invalid input is the 400.
 */
export function notFoundWhenIdInvalid(message: string): Hook<unknown, AppEnv, string, undefined> {
  return (result, c) => {
    if (!result.success && result.target === "param") throw new ApiError("not_found", message);
    return rejectInvalid(result, c);
  };
}
