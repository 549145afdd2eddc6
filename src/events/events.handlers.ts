import type { RouteHandler } from "@hono/zod-openapi";
import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink } from "../api/pagination.ts";
import type { AppEnv } from "../env.ts";
import { listEvents } from "./events.queries.ts";
import type { listEventsRoute } from "./events.routes.ts";
import { kindsOf } from "./events.schemas.ts";

export const listEventsHandler: RouteHandler<typeof listEventsRoute, AppEnv> = async (c) => {
  const { limit, type, cursor } = c.req.valid("query");
  const page = await listEvents(c.var.services.db, {
    apiKeyHash: c.var.apiKey.hash,
    types: type === undefined ? undefined : kindsOf(type),
    afterSeq: cursor === undefined ? 0 : decodeCursor(cursor),
    limit,
    now: Date.now(),
  });
  if (page.hasMore && page.lastSeq !== undefined) {
    c.header("Link", nextPageLink(c.req.url, { limit, type }, page.lastSeq));
  }
  return c.json(page.events, 200);
};
