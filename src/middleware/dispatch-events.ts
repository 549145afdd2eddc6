import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { dispatchAfterResponse } from "../events/event-dispatch.ts";

/**
 * On the routes that change animals or orders: once a change has succeeded,
 * its events (written with it, in the outbox) leave for the webhook queue
 * after the reply, so no client waits on the queue. What this misses, the
 * scheduled sweep sends.
 */
export function dispatchEventsAfterChange(): MiddlewareHandler<AppEnv> {
  return async function dispatchEventsAfterChange(c, next) {
    await next();
    if (c.res.ok) c.executionCtx.waitUntil(dispatchAfterResponse(c.var.services, Date.now()));
  };
}
