import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { describeError } from "../storage/storage-guard.ts";
import { forbiddenFormPage, messageResponse } from "./message-responses.tsx";

/** Dashboard errors are pages, not JSON: a cross-site post (hono/csrf's 403) or our own failure. */
export function handleDashboardError(error: unknown, c: Context): Response | Promise<Response> {
  if (error instanceof HTTPException && error.status === 403) return forbiddenFormPage(c);
  console.error(
    JSON.stringify({
      level: "error",
      requestId: c.get("requestId"),
      message: "dashboard error",
      error: describeError(error),
    }),
  );
  return messageResponse(c, 500, {
    title: "Something went wrong",
    message: "We could not complete that. Please try again in a moment.",
  });
}
