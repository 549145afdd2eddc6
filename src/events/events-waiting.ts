import { isNull, sql } from "drizzle-orm";
import { type Database, firstRow } from "../db/database.ts";
import { events } from "../db/schema.ts";

/** What a change's batch tells besides its result: whether events now wait for dispatch. */
export interface ChangeEvents {
  eventsWaiting: boolean;
}

/**
 * The last statement of every change's batch: one probe of the partial index
 * of undispatched events. Events that no endpoint wants are settled as they
 * are written, so a change leaves a dispatch to run only when somebody will
 * receive something, and the common change, with nobody listening, costs no
 * further call to D1.
 */
export function eventsWaitingProbe(db: Database) {
  return db
    .select({ waiting: sql<number>`1` })
    .from(events)
    .where(isNull(events.dispatchedAt))
    .limit(1);
}

/** Whether the probe, sent as a bound statement, found an event waiting. */
export function eventsWaitingIn(probe: D1Result | undefined): boolean {
  return firstRow(probe) !== undefined;
}
