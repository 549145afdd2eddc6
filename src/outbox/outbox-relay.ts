import type { Database } from "../db/database.ts";
import { describeError, log } from "../logging.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import { randomToken } from "../utils/base64url.ts";
import {
  claimEvents,
  type DeliveryMessage,
  markDispatched,
  releaseClaim,
} from "./outbox.queries.ts";

/** What the relay works with: the outbox's database and the queue it fills. */
interface Relay {
  db: Database;
  deliveries: Queue<DeliveryMessage>;
}

/**
 * Events claimed at a time, and the most one message carries: a backlog of
 * K events that E endpoints want leaves in about E × K / 100 messages.
 */
const CLAIM_SIZE = 100;
/** How long a claim holds: far longer than a dispatch takes, short enough that a lost one is retried soon. */
const CLAIM_LEASE_MS = 60_000;
/**
 * Messages per `sendBatch`: Cloudflare Queues takes at most 100, and 256 KB
 * in all; a message of 100 event ids is about 3.5 KB.
 */
const SEND_BATCH_SIZE = 50;

/** Claims after one reply: enough for what one change makes, and what earlier ones left behind. */
const AFTER_RESPONSE_ROUNDS = 4;
/** Claims per scheduled sweep: a backlog drains over a few runs rather than holding one forever. */
export const SWEEP_ROUNDS = 200;

/** The claim's deliveries as messages: one per endpoint, its events in commit order. */
function messagesOf(deliveries: readonly { eventId: string; webhookId: number }[]) {
  const byEndpoint = new Map<number, string[]>();
  for (const { eventId, webhookId } of deliveries) {
    byEndpoint.set(webhookId, [...(byEndpoint.get(webhookId) ?? []), eventId]);
  }
  return [...byEndpoint].map(([webhookId, eventIds]): DeliveryMessage => ({ webhookId, eventIds }));
}

async function send(services: Relay, messages: DeliveryMessage[]): Promise<void> {
  for (let start = 0; start < messages.length; start += SEND_BATCH_SIZE) {
    const batch = messages
      .slice(start, start + SEND_BATCH_SIZE)
      .map((body) => ({ body, contentType: "json" as const }));
    await guardStorage("Queue", () => services.deliveries.sendBatch(batch));
  }
}

/**
 * Moves waiting events from the outbox to the queue: claims up to 100, puts
 * one message per endpoint that wants any of them on the queue (those
 * events, in commit order), marks them sent; again, until none wait or
 * `rounds` claims were made. Two dispatchers never
 * hold the same event; one that dies after sending but before marking leaves
 * its claim to expire, and the event goes out again (at least once). When
 * the queue refuses, the claim is given back for the next dispatcher.
 * Returns how many deliveries (event, endpoint) it sent.
 */
export async function dispatchEvents(
  services: Relay,
  now: number,
  rounds: number,
): Promise<number> {
  const { db } = services;
  let sent = 0;
  for (let round = 0; round < rounds; round++) {
    const token = randomToken(16);
    const claim = await claimEvents(db, { token, now, leaseMs: CLAIM_LEASE_MS, limit: CLAIM_SIZE });
    if (claim.deliveries.length > 0) {
      try {
        await send(services, messagesOf(claim.deliveries));
      } catch (error) {
        await releaseClaim(db, token).catch(() => undefined);
        throw error;
      }
      await markDispatched(db, token, now);
      sent += claim.deliveries.length;
    }
    if (claim.events < CLAIM_SIZE) break;
  }
  return sent;
}

async function dispatchInBackground(services: Relay, now: number): Promise<void> {
  try {
    await dispatchEvents(services, now, AFTER_RESPONSE_ROUNDS);
  } catch (error) {
    log("warn", "event dispatch failed; the scheduled sweep retries it", {
      error: describeError(error),
    });
  }
}

/**
 * The dispatch loop running in this isolate for a queue binding: a change
 * made while it runs asks for one more pass instead of a loop of its own, so
 * a burst of changes claims its events in a few large batches rather than
 * in as many small claims racing for the same rows.
 */
const running = new WeakMap<object, { again: boolean }>();
/** How long one loop goes on passing for later changes; the scheduled sweep sends the rest. */
const LOOP_MS = 10_000;

async function dispatchWhileChanged(services: Relay, state: { again: boolean }): Promise<void> {
  const until = Date.now() + LOOP_MS;
  do {
    state.again = false;
    await dispatchInBackground(services, Date.now());
  } while (state.again && Date.now() < until);
}

/**
 * After a request whose changes saw events waiting for an endpoint (their
 * own, written with them in the outbox, or earlier ones): they leave for the
 * webhook queue once the reply is sent (`waitUntil`), so no client waits on
 * the queue. A failure is logged, and the scheduled sweep sends what is
 * left. While this isolate's loop runs, the request joins it.
 */
export function dispatchAfterReply(
  services: Relay,
  background: Pick<ExecutionContext, "waitUntil">,
): void {
  const key = services.deliveries;
  const state = running.get(key);
  if (state) {
    state.again = true;
    return;
  }
  const mine = { again: false };
  running.set(key, mine);
  background.waitUntil(dispatchWhileChanged(services, mine).finally(() => running.delete(key)));
}
