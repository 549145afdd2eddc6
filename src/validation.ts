import type { Hook } from "@hono/zod-openapi";
import type { z } from "zod";
import type { AppEnv } from "./env.ts";
import { ApiError, type ErrorDetail, messages } from "./errors.ts";

function detailsOf(error: z.ZodError, target: string): ErrorDetail[] {
  return error.issues.flatMap((issue): ErrorDetail[] => {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: base ? `${base}.${key}` : key,
        message: "Unknown field",
      }));
    }
    return [{ path: base || (target === "json" ? "body" : target), message: issue.message }];
  });
}

/**
 * Zod reports every failed check, so one bad value can yield two near-identical
 * lines (an empty name is also blank; 2^53 breaks both int and max). The first
 * says all a client needs about that field.
 */
function firstPerPath(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  return details.filter((detail) => !seen.has(detail.path) && seen.add(detail.path));
}

/** Turns a failed Zod validation into the 400 Error body with one detail per invalid field. */
export const rejectInvalid: Hook<unknown, AppEnv, string, undefined> = (result) => {
  if (result.success) return;
  const details = firstPerPath(detailsOf(result.error, result.target));
  const summary = details.map((detail) => `${detail.path}: ${detail.message}`).join("; ");
  throw new ApiError("invalid_request", messages.invalidRequest(summary), { details });
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
