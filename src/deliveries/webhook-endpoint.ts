import { DurableObject } from "cloudflare:workers";
import { newEventId } from "../changes/outbox-statements.ts";
import { EVENT_RETENTION_MS } from "../events/events.queries.ts";
import { describeError, log } from "../logging.ts";
import { buildServices, type Services } from "../services.ts";
import type { WebhookSettings } from "../webhooks/webhook-settings.ts";
import type { Delivery } from "../webhooks/webhooks.schemas.ts";
import { type EndpointForDelivery, readForDelivery } from "./delivery.queries.ts";
import { type Answer, judge, post } from "./delivery-attempt.ts";
import {
  type AttemptOutcome,
  DeliveryLog,
  type DeliveryRecord,
  type DeliveryLog as Log,
} from "./delivery-log.ts";
import { DeliverySigner } from "./delivery-signature.ts";
import { EndpointHealth } from "./endpoint-health.ts";

/**
 * Attempts made at once: the connections one invocation may hold open
 * together (deployed, a seventh waits for one of them). A backlog keeps
 * this many going, the next starting as one ends.
 */
const PARALLEL_ATTEMPTS = 6;
/**
 * How long one alarm goes on sending rounds while more are due: a healthy
 * endpoint's backlog goes out in one run (one read of the endpoint for many
 * rounds), while a hanging one's run ends after its first round's timeout.
 */
const RUN_BUDGET_MS = 2_000;
/**
 * How long the run waits, once an attempt has ended, for others about to end, to record them in
 * one write: in interleaved bench runs 4 ms gave more deliveries a second, for less CPU each,
 * than 1 ms or 10 ms. It delays the record and the next lease, never an attempt.
 */
const RECORD_GATHER_MS = 4;
/** Deliveries whose events one read of D1 fetches, ahead of their rounds. */
const PAYLOADS_READ_AHEAD = 60;
/** Beyond the timeout, how long an attempt may take before it counts as lost (the object evicted). */
const LEASE_SLACK_MS = 15_000;
/**
 * When D1 cannot be read, the alarm tries again after 1 s, then twice as
 * long each time D1 fails again, up to a minute: a blip costs a second, an
 * outage no more than a call a minute.
 */
const STORAGE_RETRY_FIRST_MS = 1_000;
const STORAGE_RETRY_MOST_MS = 60_000;

const WEBHOOK_ID = "webhookId";
/** How many alarms in a row could not read D1. */
const STORAGE_FAILURES = "storageFailures";

/** An attempt that has ended, waiting to be recorded with the others that ended meanwhile. */
interface Ended {
  delivery: DeliveryRecord;
  answer: Answer;
  outcome: AttemptOutcome;
}

/**
 * One webhook endpoint's deliveries (named by the endpoint's id). The queue
 * consumer hands it events; it records each as a pending delivery before
 * anything is sent, sends from its alarm, records every attempt, and
 * schedules retries with the alarm. An attempt in flight is leased: if the
 * object is evicted before recording it, the delivery falls due again when
 * the lease ends and the alarm, set for that moment first, sends it again
 * (at least once, same `webhook-id`). Each attempt counts toward its
 * health (EndpointHealth). A slow endpoint holds only its own object.
 */
export class WebhookEndpoint extends DurableObject<Env> {
  #log: Log;
  /** The Worker's services, built as for a request: the database and the configuration. */
  readonly #services: Services;
  readonly #settings: WebhookSettings;
  readonly #signer = new DeliverySigner();
  readonly #health: EndpointHealth;
  /** The endpoint's id once this instance has stored or found it: each call names it. */
  #webhookId: number | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#log = new DeliveryLog(ctx.storage.sql);
    this.#services = buildServices(env);
    this.#settings = this.#services.config.webhooks;
    this.#health = new EndpointHealth(ctx.storage.kv, this.#services);
  }

  /**
   * Takes events for delivery, in the order given (commit order); taking
   * one it already has (a re-send) changes nothing.
   */
  async accept(webhookId: number, eventIds: readonly string[]): Promise<void> {
    this.#remember(webhookId);
    const now = Date.now();
    const added = eventIds.filter((eventId) => this.#log.add(eventId, now));
    if (added.length > 0) await this.#wakeBy(now);
  }

  /** A `webhook.test` event for this endpoint alone, sent now; it counts toward no health. */
  async sendTest(webhookId: number): Promise<Delivery> {
    this.#remember(webhookId);
    const now = Date.now();
    const id = newEventId();
    const body = JSON.stringify({
      id,
      type: "webhook.test",
      createdAt: new Date(now).toISOString(),
      data: { webhookId },
    });
    const delivery = this.#log.add(id, now, body);
    if (!delivery) throw new Error("a fresh event id was already recorded");
    await this.#wakeBy(now);
    return this.#shown(delivery.id);
  }

  /** The delivery's event again, now, as one more attempt; undefined when unknown. */
  async retry(webhookId: number, deliveryId: number): Promise<Delivery | undefined> {
    this.#remember(webhookId);
    const now = Date.now();
    const delivery = this.#log.requeue(deliveryId, now, true);
    if (!delivery) return undefined;
    await this.#wakeBy(now);
    return this.#shown(delivery.id);
  }

  /**
   * Queues again, once each and oldest first, its deliveries made since
   * `since` that failed or were skipped: exactly the events the endpoint
   * wanted when they were committed. How many.
   */
  async recover(webhookId: number, since: number): Promise<number> {
    this.#remember(webhookId);
    const now = Date.now();
    const queued = this.#log.recoverSince(since, now);
    if (queued > 0) await this.#wakeBy(now);
    return queued;
  }

  /** The owner enabled the endpoint: its health starts afresh. */
  enabled(): void {
    this.#health.reset();
  }

  deliveries(beforeId: number | undefined, limit: number) {
    return this.#log.page(beforeId, limit);
  }

  /** The endpoint was deleted: its deliveries go, and nothing more is sent. */
  async forget(): Promise<void> {
    this.#webhookId = undefined;
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    // A late message for the endpoint may still arrive; its alarm finds the endpoint gone.
    this.#log = new DeliveryLog(this.ctx.storage.sql);
  }

  override async alarm(): Promise<void> {
    const webhookId = this.ctx.storage.kv.get<number>(WEBHOOK_ID);
    if (webhookId === undefined) return;
    const now = Date.now();
    try {
      await this.#send(webhookId, now);
    } catch (error) {
      const failures = (this.ctx.storage.kv.get<number>(STORAGE_FAILURES) ?? 0) + 1;
      this.ctx.storage.kv.put(STORAGE_FAILURES, failures);
      const retryMs = Math.min(STORAGE_RETRY_FIRST_MS * 2 ** (failures - 1), STORAGE_RETRY_MOST_MS);
      log("error", "webhook endpoint could not read its endpoint or events", {
        webhookId,
        failures,
        retryMs,
        error: describeError(error),
      });
      await this.ctx.storage.setAlarm(Date.now() + retryMs);
      return;
    }
    if (this.ctx.storage.kv.get(STORAGE_FAILURES) !== undefined) {
      this.ctx.storage.kv.delete(STORAGE_FAILURES);
    }
    await this.#tidyAndScheduleNext(now);
  }

  #remember(webhookId: number): void {
    if (this.#webhookId === webhookId) return;
    if (this.ctx.storage.kv.get(WEBHOOK_ID) !== webhookId) {
      this.ctx.storage.kv.put(WEBHOOK_ID, webhookId);
    }
    this.#webhookId = webhookId;
  }

  #shown(deliveryId: number): Delivery {
    const delivery = this.#log.find(deliveryId);
    if (!delivery) throw new Error("a delivery just recorded is missing");
    return delivery;
  }

  /** Makes sure the alarm runs by `at`. */
  async #wakeBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /**
   * Removes settled deliveries past retention, when there are any (most
   * runs find none, and write nothing), and sets the alarm for the next
   * delivery due or the next removal.
   */
  async #tidyAndScheduleNext(now: number): Promise<void> {
    const removeBefore = now - EVENT_RETENTION_MS;
    let oldest = this.#log.oldestSettled();
    if (oldest !== undefined && oldest < removeBefore) {
      this.#log.removeSettledBefore(removeBefore);
      oldest = this.#log.oldestSettled();
    }
    const pending = this.#log.nextDue();
    const cleanUp = oldest === undefined ? undefined : oldest + EVENT_RETENTION_MS;
    const next = Math.min(pending ?? Number.POSITIVE_INFINITY, cleanUp ?? Number.POSITIVE_INFINITY);
    if (Number.isFinite(next)) await this.ctx.storage.setAlarm(next);
  }

  /**
   * Sends what is due, PARALLEL_ATTEMPTS at most at once, starting the next
   * as soon as one ends, until none is due or the run's budget is spent
   * (the next alarm goes on); the run ends once its attempts have. The
   * endpoint is read when the first delivery is due; events are read (with
   * those of the next deliveries, and with the endpoint in one round trip
   * when both are wanted) before their deliveries are leased, so a failed
   * read leaves every delivery due for the retry.
   */
  async #send(webhookId: number, started: number): Promise<void> {
    const running = new Set<Promise<void>>();
    const ended: Ended[] = [];
    try {
      await this.#sendWhileDue(webhookId, started, running, ended);
    } finally {
      await Promise.all(running);
      // A record that cannot be written throws: the alarm tries again, as for a failed read.
      await this.#record(webhookId, ended);
    }
  }

  async #sendWhileDue(
    webhookId: number,
    started: number,
    running: Set<Promise<void>>,
    ended: Ended[],
  ): Promise<void> {
    let endpoint: EndpointForDelivery | undefined;
    let leaseAlarmSet = false;
    for (let now = started; now - started < RUN_BUDGET_MS; now = Date.now()) {
      // What ended is recorded before the next are leased: one write for both.
      await this.#record(webhookId, ended);
      const room = PARALLEL_ATTEMPTS - running.size;
      let due = room > 0 ? this.#log.due(now, room) : [];
      if (due.length === 0) {
        if (running.size === 0) return;
        await Promise.race(running);
        // Attempts that end close together are recorded together: under
        // load, one write (and one commit) for several rather than for each.
        await scheduler.wait(RECORD_GATHER_MS);
        continue;
      }
      const unread = due.some((delivery) => delivery.payload === null)
        ? this.#log.due(now, PAYLOADS_READ_AHEAD).filter((delivery) => delivery.payload === null)
        : [];
      if (endpoint === undefined || unread.length > 0) {
        const read = await readForDelivery(this.#services.db, {
          webhookId: endpoint === undefined ? webhookId : undefined,
          now: started,
          eventIds: unread.map((delivery) => delivery.eventId),
        });
        if (read.endpoint === null) {
          await this.forget();
          return;
        }
        endpoint ??= read.endpoint;
        if (endpoint === undefined) throw new Error("the endpoint was not read");
        if (endpoint.enabled && unread.length > 0) {
          this.#storePayloads(unread, read.bodies);
          due = this.#log.due(now, room);
        }
      }
      if (!endpoint.enabled) {
        this.#log.skip(due.map((delivery) => delivery.id));
        continue;
      }
      const ready = due.flatMap(({ payload, ...delivery }) =>
        payload === null ? [] : [{ ...delivery, payload }],
      );
      const leaseEnd = now + this.#settings.timeoutMs + LEASE_SLACK_MS;
      this.#log.lease(
        ready.map((delivery) => delivery.id),
        leaseEnd,
      );
      // The run's first lease ends first: should the object be evicted, the
      // alarm then finds those due, and sets itself for the later ones.
      if (!leaseAlarmSet) {
        await this.ctx.storage.setAlarm(leaseEnd);
        leaseAlarmSet = true;
      }
      for (const delivery of ready) {
        const attempt: Promise<void> = this.#attempt(endpoint, delivery)
          .then((end) => {
            ended.push(end);
          })
          .finally(() => running.delete(attempt));
        running.add(attempt);
      }
    }
  }

  /**
   * Keeps the events read for deliveries that had none; those past
   * retention are dropped, as there is nothing to send.
   */
  #storePayloads(unread: readonly DeliveryRecord[], bodies: Map<string, string>): void {
    const gone: number[] = [];
    for (const delivery of unread) {
      const payload = bodies.get(delivery.eventId);
      if (payload === undefined) gone.push(delivery.id);
      else this.#log.setPayload(delivery.id, payload);
    }
    this.#log.remove(gone);
  }

  /** One attempt, judged as it ends (its next retry counts from then); recorded by the run. */
  async #attempt(
    endpoint: EndpointForDelivery,
    delivery: DeliveryRecord & { payload: string },
  ): Promise<Ended> {
    const attemptedAt = Date.now();
    const answer = await post(
      this.#signer,
      endpoint,
      { id: delivery.eventId, body: delivery.payload },
      attemptedAt,
      this.#settings.timeoutMs,
    );
    const outcome = judge(delivery, answer, attemptedAt, this.#settings.retryDelaysSeconds);
    return { delivery, answer, outcome };
  }

  /** Records the attempts that ended, and the endpoint's health after each. */
  async #record(webhookId: number, ended: Ended[]): Promise<void> {
    for (const { delivery, answer, outcome } of ended.splice(0)) {
      this.#log.record(delivery, outcome);
      const { attemptedAtMs } = outcome.attempt;
      if (!delivery.test) await this.#health.judge(webhookId, answer, attemptedAtMs);
    }
  }
}
