import type { AttemptOutcome, DeliveryRecord } from "./delivery-log.ts";
import type { DeliverySigner } from "./delivery-signature.ts";

const USER_AGENT = "PetStore-Webhooks/1.0";

/** What one POST came to: the endpoint's status (with any Retry-After), or why there was none. */
export type Answer = { status: number; retryAfterMs?: number } | { error: string };

/** Where and how an endpoint's deliveries are sent right now. */
interface DeliveryTarget {
  url: string;
  /** The secrets to sign with, newest first. */
  secrets: readonly string[];
}

/** Retry-After as seconds or an HTTP date, in milliseconds from `now`; undefined when unreadable. */
function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** POSTs the event, signed for this attempt, and waits at most `timeoutMs` for the status. */
export async function post(
  signer: DeliverySigner,
  target: DeliveryTarget,
  event: { id: string; body: string },
  attemptedAt: number,
  timeoutMs: number,
): Promise<Answer> {
  const headers = await signer.sign(target.secrets, {
    id: event.id,
    timestampSeconds: Math.floor(attemptedAt / 1000),
    body: event.body,
  });
  try {
    const response = await fetch(target.url, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json", "User-Agent": USER_AGENT },
      body: event.body,
      // A redirect is an answer like any other (not 2xx, so a failure), never followed.
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    const waitAsked =
      response.status === 429 || response.status === 503
        ? retryAfterMs(response.headers.get("Retry-After"), Date.now())
        : undefined;
    return waitAsked === undefined
      ? { status: response.status }
      : { status: response.status, retryAfterMs: waitAsked };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    return {
      error: timedOut
        ? `No response within ${timeoutMs / 1000} s.`
        : "The connection to the endpoint failed.",
    };
  }
}

export const isSuccess = (answer: Answer): boolean =>
  "status" in answer && answer.status >= 200 && answer.status < 300;

/** 410 Gone: the endpoint says it is gone for good; nothing is retried and the service disables it. */
export const isGone = (answer: Answer): boolean => "status" in answer && answer.status === 410;

/**
 * The attempt's outcome: succeeded on 2xx; failed at once on 410; otherwise pending until the
 * schedule's next delay (or the endpoint's Retry-After, if longer), and
 * failed once the schedule is spent or the delivery had one attempt only.
 */
export function judge(
  delivery: DeliveryRecord,
  answer: Answer,
  attemptedAt: number,
  retryDelaysSeconds: readonly number[],
): AttemptOutcome {
  const attempt = {
    attemptedAt: new Date(attemptedAt).toISOString(),
    attemptedAtMs: attemptedAt,
    responseStatus: "status" in answer ? answer.status : null,
    error: "error" in answer ? answer.error : null,
  };
  if (isSuccess(answer)) return { attempt, status: "succeeded", dueAt: null };
  const delay = delivery.once || isGone(answer) ? undefined : retryDelaysSeconds[delivery.step];
  if (delay === undefined) return { attempt, status: "failed", dueAt: null };
  const wait = Math.max(delay * 1000, ("retryAfterMs" in answer && answer.retryAfterMs) || 0);
  return { attempt, status: "pending", dueAt: Date.now() + wait };
}
