import { deleteExpiredInvites } from "./accounts/invites.queries.ts";
import { deleteExpiredIdempotencyRecords } from "./changes/idempotency.queries.ts";
import { deleteExpiredNotices } from "./dashboard/notices.queries.ts";
import { deleteExpiredSessions } from "./dashboard/sessions.queries.ts";
import { deleteExpiredEvents } from "./events/events.queries.ts";
import { publishLaggingKeys } from "./keys/key-changes.ts";
import { log } from "./logging.ts";
import { dispatchEvents, SWEEP_ROUNDS } from "./outbox/outbox-relay.ts";
import { sweepPhotos } from "./photos/photo-removal.ts";
import type { Services } from "./services.ts";

/**
 * The scheduled job (every five minutes): finishes key changes whose KV
 * record or Durable Object did not take them, sends the events no dispatch
 * after a reply sent (the queue failed, or a dispatcher died holding them),
 * deletes the photos a failure left behind, and removes what has expired.
 * Each task runs even when another fails; a failure is logged and retried
 * on the next run.
 */
export async function runScheduledTasks(services: Services, now: number): Promise<void> {
  const tasks: Record<string, () => Promise<unknown>> = {
    keysPublished: () => publishLaggingKeys(services),
    idempotencyRecordsRemoved: () => deleteExpiredIdempotencyRecords(services.db, now),
    invitesRemoved: () => deleteExpiredInvites(services.db, now),
    sessionsRemoved: () => deleteExpiredSessions(services.db, now),
    noticesRemoved: () => deleteExpiredNotices(services.db, now),
    deliveriesQueued: () => dispatchEvents(services, now, SWEEP_ROUNDS),
    eventsRemoved: () => deleteExpiredEvents(services.db, now),
    photosRemoved: () => sweepPhotos(services, now),
  };
  const names = Object.keys(tasks);
  const outcomes = await Promise.allSettled(Object.values(tasks).map((task) => task()));
  const fields: Record<string, unknown> = {};
  outcomes.forEach((outcome, index) => {
    fields[names[index] ?? "task"] = outcome.status === "fulfilled" ? outcome.value : "failed";
  });
  const failed = outcomes.some((outcome) => outcome.status === "rejected");
  log(failed ? "error" : "info", "scheduled tasks ran", fields);
}
