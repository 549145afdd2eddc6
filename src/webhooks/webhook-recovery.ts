import type { Services } from "../services.ts";
import { wantedEventsSince } from "./webhooks.queries.ts";

/** Events read from the feed and handed to the endpoint's object at a time. */
const RECOVERY_PAGE = 500;

/**
 * Queues again every event since `since` the endpoint wants, in commit
 * order, page by page; its object skips those it delivered or has on their
 * way. How many it queued.
 */
export async function recoverMissed(
  services: Services,
  webhookId: number,
  since: number,
): Promise<number> {
  let queued = 0;
  let afterSeq = 0;
  for (;;) {
    const page = await wantedEventsSince(services.db, {
      webhookId,
      since,
      afterSeq,
      limit: RECOVERY_PAGE,
    });
    if (page.ids.length > 0) {
      queued += await services.webhookEndpoints.recover(webhookId, page.ids);
    }
    if (page.lastSeq === undefined || page.ids.length < RECOVERY_PAGE) return queued;
    afterSeq = page.lastSeq;
  }
}
