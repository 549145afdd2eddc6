import type { Services } from "../services.ts";
import { disableWebhook } from "../webhooks/endpoint-changes.ts";
import { type Answer, isGone, isSuccess } from "./delivery-attempt.ts";

const FIRST_FAILURE_AT = "firstFailureAt";
const GONE_REASON = "The endpoint answered 410 Gone.";
const failingReason = (since: number) =>
  `No successful delivery since a failure at ${new Date(since).toISOString()}.`;

/**
 * An endpoint's health, kept in its object's storage: the first failure
 * since the last success. It disables the endpoint, through the endpoints'
 * one writer, when it has failed for `disableAfterMs`, or at once on 410 Gone.
 */
export class EndpointHealth {
  readonly #kv: SyncKvStorage;
  readonly #services: Services;

  constructor(kv: SyncKvStorage, services: Services) {
    this.#kv = kv;
    this.#services = services;
  }

  /** The owner enabled the endpoint: its health starts afresh. */
  reset(): void {
    this.#kv.delete(FIRST_FAILURE_AT);
  }

  /** Counts one attempt's answer (test sends count toward none). */
  async judge(webhookId: number, answer: Answer, attemptedAt: number): Promise<void> {
    if (isSuccess(answer)) {
      // Most successes follow successes: a write only when a failure was on record.
      if (this.#kv.get(FIRST_FAILURE_AT) !== undefined) this.reset();
      return;
    }
    const firstFailure = this.#kv.get<number>(FIRST_FAILURE_AT) ?? attemptedAt;
    this.#kv.put(FIRST_FAILURE_AT, firstFailure);
    const gone = isGone(answer);
    if (gone || attemptedAt - firstFailure >= this.#services.config.webhooks.disableAfterMs) {
      await disableWebhook(
        this.#services,
        webhookId,
        gone ? GONE_REASON : failingReason(firstFailure),
      );
    }
  }
}
