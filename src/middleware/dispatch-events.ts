import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { dispatchAfterResponse } from "../events/event-dispatch.ts";
import type { ChangeEvents } from "../events/events-waiting.ts";

/**
 * On the routes that change animals or orders: when the change's batch saw
 * events waiting for an endpoint (its own, written with it in the outbox,
 * or earlier ones), they leave for the webhook queue after the reply, so no
 * client waits on the queue. What this misses, the scheduled sweep sends.
 */
export function dispatchEventsAfterChange(): MiddlewareHandler<AppEnv> {
  return async function dispatchEventsAfterChange(c, next) {
    await next();
    if (c.var.eventsWaiting) {
      c.executionCtx.waitUntil(dispatchAfterResponse(c.var.services, Date.now()));
    }
  };
}

/**
 * Asks for a dispatch after the reply when a change's batch saw events
 * waiting. An outcome without the answer (a replay) ran no change.
 */
export function noteWaitingEvents(c: Context<AppEnv>, outcome: ChangeEvents | object): void {
  if ("eventsWaiting" in outcome && outcome.eventsWaiting) c.set("eventsWaiting", true);
}
