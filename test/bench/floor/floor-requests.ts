import type { Context } from "hono";
import { decodeCursor } from "../../../src/api/cursor.ts";
import type { ChangeRequest } from "../../../src/catalogue/changes.ts";
import { changerOf } from "../../../src/catalogue/ownership.ts";
import type { Services } from "../../../src/services.ts";
import { CALLERS } from "../callers.ts";

/**
 * What every floor reads its request with: the route's context, the
 * callers it acts for, a listing's page, a change's request.
 */

export type FloorContext = Context<{ Bindings: Env }>;

/** A floor answers with its context and the services the API would hand the request. */
export type Floor = (c: FloorContext, services: Services) => Promise<Response>;

/** The API key hash of the caller the floor acts for, as its database holds it (callers.ts). */
export const shopper = CALLERS.shopper.floorKeyHash;
export const hooks = CALLERS.hooks.floorKeyHash;

/** The path parameter `name` as a number. */
export const id = (c: FloorContext, name: string) => Number(c.req.param(name));
export const now = () => Date.now();

/** A listing's `limit` and `cursor` as the API reads them: 20 and from the start by default. */
export function page(c: FloorContext) {
  const cursor = c.req.query("cursor");
  return {
    limit: Number(c.req.query("limit") ?? 20),
    afterId: cursor === undefined ? 0 : decodeCursor(cursor),
  };
}

/** The shopper's change of the record at `name` in the path, whatever its version (no If-Match). */
export function changeOf(c: FloorContext, { config }: Services, name: string): ChangeRequest {
  return { id: id(c, name), changer: changerOf({ hash: shopper }, config), accepted: undefined };
}
