import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ApiError } from "../errors.ts";
import { describeError, log } from "../logging.ts";
import { forbiddenFormPage, messageResponse } from "./message-responses.tsx";

/**
 * Dashboard errors are pages, not JSON: a cross-site post (hono/csrf's 403),
 * a storage service that did not answer (503, logged where it failed), or our
 * own failure.
 */
export function handleDashboardError(error: unknown, c: Context): Response | Promise<Response> {
  if (error instanceof HTTPException && error.status === 403) return forbiddenFormPage(c);
  if (error instanceof ApiError && error.code === "unavailable") {
    for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
    return messageResponse(c, 503, {
      title: "Briefly unavailable",
      message: "We could not complete that just now. Please try again in a moment.",
    });
  }
  log("error", "dashboard error", { requestId: c.get("requestId"), error: describeError(error) });
  return messageResponse(c, 500, {
    title: "Something went wrong",
    message: "We could not complete that. Please try again in a moment.",
  });
}
