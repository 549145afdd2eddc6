import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { rejectInvalid } from "../validation.ts";
import { listEventsHandler } from "./events.handlers.ts";
import { listEventsRoute } from "./events.routes.ts";

/** The event feed (beta), below the /v1 authentication and limits. */
export function eventsRoutes(): OpenAPIHono<AppEnv> {
  const feed = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  feed.openapi(listEventsRoute, listEventsHandler);
  feed.all("/events", methodNotAllowed(["GET", "HEAD"]));
  return feed;
}
