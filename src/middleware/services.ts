import type { Context } from "hono";
import type { AppEnv } from "../context.ts";
import { dispatchAfterReply } from "../outbox/outbox-relay.ts";
import { removeMarkedPhotos } from "../photos/photo-removal.ts";
import { type Services, servicesOrReport } from "../services.ts";

/**
 * Hands the request the isolate's services, so nothing after this reaches
 * into a binding; undefined without a valid configuration, with which
 * nothing can be answered safely (the log names the variables at fault).
 */
export function requestServices(c: Context<AppEnv>, requestId: string): Services | undefined {
  const built = servicesOrReport(c.env, { requestId });
  if (built) c.set("services", built);
  return built;
}

/**
 * The one step after every handler, the API's and the dashboard's alike:
 * it dispatches the events the request's changes left waiting, as recorded
 * on its D1 session, so a handler that failed after its change has them
 * sent too. Before that, and before the reply, it deletes the photos the
 * request's changes marked, so their addresses are 404 by the time the
 * change is answered.
 */
export async function afterChanges(c: Context<AppEnv>, built: Services): Promise<void> {
  const { changes } = c.get("services").db;
  if (changes?.photosMarked) await removeMarkedPhotos(c.get("services"), changes.photosMarked);
  if (changes?.eventsWaiting) dispatchAfterReply(built, c.executionCtx);
}
