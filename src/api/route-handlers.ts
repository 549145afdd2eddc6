import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context.ts";
import type { OperatorRoute, RouteTable } from "./route-table.ts";

/**
 * A handler for every route of a table, keyed as the table is: a route
 * without a handler, or a handler without a route, does not compile. Apart
 * from the tables, which the Node-run document writer reads without the
 * Worker's types.
 */
export type RouteHandlers<T extends RouteTable<OperatorRoute>> = {
  [K in keyof T]: RouteHandler<T[K], AppEnv>;
};
