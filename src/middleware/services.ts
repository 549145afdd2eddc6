import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.ts";
import { ApiError, errorResponse, messages } from "../errors.ts";
import { dispatchAfterReply } from "../outbox/outbox-relay.ts";
import { removeMarkedPhotos } from "../photos/photo-removal.ts";
import { servicesOrReport } from "../services.ts";

/**
 * Hands the request the isolate's services, so nothing after this reaches
 * into a binding. Without a valid configuration nothing can be answered
 * safely: the request gets a bland 500, the log the variables at fault.
 * It is also the one step after every handler, the API's and the
 * dashboard's alike, that dispatches the events its changes left waiting,
 * as recorded on the request's D1 session: a handler that failed after its
 * change has them sent too. Before that, and before the reply, it deletes
 * the photos the request's changes marked, so their addresses are 404 by the
 * time the change is answered.
 */
export function services(): MiddlewareHandler<AppEnv> {
  return async function services(c, next) {
    const built = servicesOrReport(c.env, { requestId: c.get("requestId") });
    if (!built) return errorResponse(c, new ApiError("internal_error", messages.internalError));
    c.set("services", built);
    await next();
    const { changes } = c.get("services").db;
    if (changes?.photosMarked) await removeMarkedPhotos(c.get("services"), changes.photosMarked);
    if (changes?.eventsWaiting) dispatchAfterReply(built, c.executionCtx);
  };
}
