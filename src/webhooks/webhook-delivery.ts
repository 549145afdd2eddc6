import { type DeliveryMessage, toEvent } from "../events/event-records.ts";
import { describeError, log } from "../logging.ts";
import type { Services } from "../services.ts";
import { signDelivery } from "./webhook-signature.ts";
import {
  type AttemptRecord,
  type DeliveryTarget,
  findDeliveryTarget,
  recordAttempt,
} from "./webhooks.queries.ts";

const USER_AGENT = "PetStore-Webhooks/1.0";

/** What one POST came to: the endpoint's status, or why there was none. */
type Answer = { status: number } | { error: string };

/** POSTs the event, signed for this attempt, and waits at most `timeoutMs` for the status. */
async function post(
  target: DeliveryTarget,
  attemptedAt: number,
  timeoutMs: number,
): Promise<Answer> {
  const body = JSON.stringify(toEvent(target.event));
  const headers = await signDelivery(target.secret, {
    id: target.event.id,
    timestampSeconds: Math.floor(attemptedAt / 1000),
    body,
  });
  try {
    const response = await fetch(target.url, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json", "User-Agent": USER_AGENT },
      body,
      // A redirect is an answer like any other (not 2xx, so a failure), never followed.
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return { status: response.status };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    return {
      error: timedOut
        ? `No response within ${timeoutMs / 1000} s.`
        : "The connection to the endpoint failed.",
    };
  }
}

/** The attempt's outcome, and when the next is due: per the retry schedule, until it is spent. */
function judge(
  answer: Answer,
  attempt: number,
  attemptedAt: number,
  retryDelaysSeconds: readonly number[],
): Pick<AttemptRecord, "outcome" | "nextRetryAt"> & { retryInSeconds: number | undefined } {
  if ("status" in answer && answer.status >= 200 && answer.status < 300) {
    return { outcome: "succeeded", nextRetryAt: null, retryInSeconds: undefined };
  }
  const delay = retryDelaysSeconds[attempt - 1];
  return delay === undefined
    ? { outcome: "failed", nextRetryAt: null, retryInSeconds: undefined }
    : { outcome: "retrying", nextRetryAt: attemptedAt + delay * 1000, retryInSeconds: delay };
}

/**
 * One message: one attempt to deliver an event to an endpoint. The attempt
 * is recorded for listDeliveries; a failure is retried through the queue
 * with the schedule's next delay, so the message's attempt count is the
 * delivery's. When the event or the endpoint is gone, there is nothing to
 * do. When this Worker's own storage fails, the message is retried as well;
 * if that keeps happening, the queue moves it to the dead-letter queue.
 */
async function deliver(services: Services, message: Message<DeliveryMessage>): Promise<void> {
  const { eventId, webhookId } = message.body;
  const { retryDelaysSeconds, timeoutMs } = services.config.webhooks;
  const fallbackDelay = retryDelaysSeconds[message.attempts - 1] ?? retryDelaysSeconds.at(-1) ?? 0;
  let target: DeliveryTarget | undefined;
  try {
    target = await findDeliveryTarget(services.db, eventId, webhookId);
  } catch (error) {
    log("error", "webhook delivery could not read its event", {
      eventId,
      webhookId,
      error: describeError(error),
    });
    message.retry({ delaySeconds: fallbackDelay });
    return;
  }
  if (!target) {
    message.ack();
    return;
  }
  const attemptedAt = Date.now();
  const answer = await post(target, attemptedAt, timeoutMs);
  const verdict = judge(answer, message.attempts, attemptedAt, retryDelaysSeconds);
  const record: AttemptRecord = {
    webhookId,
    eventId,
    attempt: message.attempts,
    attemptedAt,
    outcome: verdict.outcome,
    responseStatus: "status" in answer ? answer.status : null,
    error: "error" in answer ? answer.error : null,
    nextRetryAt: verdict.nextRetryAt,
  };
  try {
    await recordAttempt(services.db, record);
  } catch (error) {
    // The attempt was made either way; retrying a success only to record it would send it twice.
    log("error", "webhook delivery attempt not recorded", {
      eventId,
      webhookId,
      error: describeError(error),
    });
  }
  if (verdict.retryInSeconds === undefined) message.ack();
  else message.retry({ delaySeconds: verdict.retryInSeconds });
}

/** The queue consumer: each message of the batch on its own, at once. */
export async function deliverBatch(
  services: Services,
  batch: MessageBatch<DeliveryMessage>,
): Promise<void> {
  await Promise.all(batch.messages.map((message) => deliver(services, message)));
}
