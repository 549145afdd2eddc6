import { env } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ReceivedRequest } from "../../receiver/receiver.ts";
import { createPet } from "../support/assertions.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { captureLogs } from "../support/logs.ts";
import { move, placeOrder } from "../support/orders.ts";
import { api } from "../support/request.ts";
import {
  type DeliveryBody,
  deliveriesOf,
  type EventBody,
  eventually,
  feed,
  received,
  receivedAtLeast,
  receiverUrl,
  refusingUrl,
  registerWebhook,
  settledDeliveries,
  uniqueName,
} from "../support/webhooks.ts";

/** The schedule the tests run with (test/vitest.config.ts), in seconds. */
const RETRY_DELAYS = env.WEBHOOK_RETRY_DELAYS.split(",").map(Number);
const ATTEMPTS = RETRY_DELAYS.length + 1;
const TIMEOUT_MS = Number(env.WEBHOOK_TIMEOUT_MS);
/** Long enough for every attempt of a failing delivery, timeouts included. */
const WHOLE_SCHEDULE_MS =
  (RETRY_DELAYS.reduce((sum, delay) => sum + delay, 0) + 1) * 1000 + ATTEMPTS * (TIMEOUT_MS + 500);

let alice: string;
let bob: string;

/** A key of an account of its own, so no test meets another's cap of endpoints. */
async function freshKey(): Promise<string> {
  return (await seedUnlimitedKey()).key;
}

beforeAll(async () => {
  alice = await freshKey();
  bob = await freshKey();
});

// Pet events go to every endpoint: each test hears only the endpoints it registers.
afterEach(async () => {
  await env.DB.prepare("DELETE FROM webhooks").run();
});

const verify = (secret: string, request: Pick<ReceivedRequest, "body" | "headers">) =>
  new Webhook(secret).verify(request.body, request.headers) as EventBody;

/** Waits until the endpoint's one delivery is settled, and returns its attempts. */
async function settledAttempts(key: string, webhookId: number): Promise<DeliveryBody> {
  const [delivery] = await settledDeliveries(key, webhookId, 1, WHOLE_SCHEDULE_MS);
  if (!delivery) throw new Error("unreachable");
  return delivery;
}

describe("a delivery", () => {
  it("is the event, POSTed as JSON, signed per Standard Webhooks and verified by the official library", async () => {
    const name = uniqueName("signed");
    const endpoint = await registerWebhook(alice, receiverUrl("ok", name), ["pet.created"]);
    const pet = await createPet(alice, { name: "Signed", categoryId: 6 });
    const [request] = await receivedAtLeast(name, 1);
    if (!request) throw new Error("unreachable");
    expect(request.method).toBe("POST");
    expect(request.headers["content-type"]).toBe("application/json");
    const [event] = (await feed(alice, "pet.created")).filter((item) => item.data.id === pet.id);
    expect(JSON.parse(request.body)).toEqual(event);
    expect(request.headers["webhook-id"]).toBe(event?.id);
    expect(Number(request.headers["webhook-timestamp"])).toBeCloseTo(Date.now() / 1000, -2);
    expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(endpoint.secret, request)).toEqual(event);

    const [delivery, ...more] = await settledDeliveries(alice, endpoint.id, 1);
    expect(more).toEqual([]);
    expect(delivery).toMatchObject({
      eventId: event?.id,
      status: "succeeded",
      nextAttemptAt: null,
      attempts: [{ responseStatus: 200, error: null }],
    });
  });

  it("is refused by the library once its body, id or timestamp is changed, or under another secret", async () => {
    const name = uniqueName("tampered");
    const endpoint = await registerWebhook(alice, receiverUrl("ok", name), ["pet.created"]);
    await createPet(alice, { name: "Tampered", categoryId: 6 });
    const [request] = await receivedAtLeast(name, 1);
    if (!request) throw new Error("unreachable");
    expect(() => verify(endpoint.secret, request)).not.toThrow();
    const body = JSON.parse(request.body) as EventBody;
    const tampered: Pick<ReceivedRequest, "body" | "headers">[] = [
      { ...request, body: JSON.stringify({ ...body, data: { ...body.data, name: "Mallory" } }) },
      { ...request, body: `${request.body} ` },
      {
        ...request,
        headers: { ...request.headers, "webhook-id": "evt_0000000000000000000000000a" },
      },
      {
        ...request,
        headers: {
          ...request.headers,
          "webhook-timestamp": String(Number(request.headers["webhook-timestamp"]) - 1),
        },
      },
    ];
    for (const changed of tampered) expect(() => verify(endpoint.secret, changed)).toThrow();
    const other = await registerWebhook(alice, receiverUrl("ok", uniqueName("other")), [
      "pet.created",
    ]);
    expect(() => verify(other.secret, request)).toThrow();
  });
});

describe("who receives what", () => {
  it("each endpoint gets the kinds it asked for that its account may see, once, from its registration on", async () => {
    const before = await createPet(bob, { name: "Before", categoryId: 7 });
    const names = {
      all: uniqueName("all"),
      completed: uniqueName("completed"),
      bobs: uniqueName("bobs"),
    };
    const all = await registerWebhook(alice, receiverUrl("ok", names.all), ["pet.*", "order.*"]);
    await registerWebhook(alice, receiverUrl("ok", names.completed), ["order.completed"]);
    await registerWebhook(bob, receiverUrl("ok", names.bobs), ["pet.status_changed", "order.*"]);

    const pet = await createPet(bob, { name: "Watched", categoryId: 7 });
    const order = await placeOrder(alice, pet.id);
    await (await move(alice, order.id, "complete")).json();

    const kinds = async (name: string, count: number) =>
      (await receivedAtLeast(name, count)).map((request) => {
        const event = JSON.parse(request.body) as EventBody;
        return `${event.type} ${event.data.id}`;
      });
    expect((await kinds(names.all, 5)).sort()).toEqual(
      [
        `pet.created ${pet.id}`,
        `pet.status_changed ${pet.id}`,
        `order.placed ${order.id}`,
        `pet.status_changed ${pet.id}`,
        `order.completed ${order.id}`,
      ].sort(),
    );
    expect(await kinds(names.completed, 1)).toEqual([`order.completed ${order.id}`]);
    expect(await kinds(names.bobs, 2)).toEqual([
      `pet.status_changed ${pet.id}`,
      `pet.status_changed ${pet.id}`,
    ]);

    // Nothing more arrives later: no duplicates, nothing from before, nothing of another account.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await received(names.all)).toHaveLength(5);
    expect(await received(names.completed)).toHaveLength(1);
    expect(await received(names.bobs)).toHaveLength(2);
    const ids = (await received(names.all)).map((request) => request.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(5);
    expect((await kinds(names.all, 5)).some((kind) => kind.endsWith(` ${before.id}`))).toBe(false);
    expect(await settledDeliveries(alice, all.id, 5)).toHaveLength(5);
  });

  it("a deleted endpoint gets nothing more, and its deliveries are gone", async () => {
    const alice = await freshKey();
    const name = uniqueName("deleted");
    const endpoint = await registerWebhook(alice, receiverUrl("ok", name), ["pet.created"]);
    await createPet(alice, { name: "Seen", categoryId: 1 });
    await receivedAtLeast(name, 1);
    const deleted = await api(`/v1/webhooks/${endpoint.id}`, { method: "DELETE", key: alice });
    expect(deleted.status).toBe(204);
    await deleted.arrayBuffer();
    await createPet(alice, { name: "Unseen", categoryId: 1 });
    const witness = uniqueName("witness");
    await registerWebhook(alice, receiverUrl("ok", witness), ["pet.created"]);
    await createPet(alice, { name: "Witnessed", categoryId: 1 });
    await receivedAtLeast(witness, 1);
    expect(await received(name)).toHaveLength(1);
    const gone = await api(`/v1/webhooks/${endpoint.id}/deliveries`, { key: alice });
    expect(gone.status).toBe(404);
    await gone.arrayBuffer();
  });
});

describe("failures are retried on the schedule, with the same webhook-id, then the delivery fails", () => {
  const logs = captureLogs();

  // A 500 runs the whole schedule; an answer that comes too late is met once, then the
  // endpoint answers: the timeout is retried as the 500 is, without seven timeouts' wait.
  it(
    "500 and no answer in time: every attempt recorded, in backoff order",
    async () => {
      const alice = await freshKey();
      const names = { fail: uniqueName("fail"), slow: uniqueName("slow") };
      const endpoints = {
        fail: await registerWebhook(alice, receiverUrl("fail", names.fail), ["pet.created"]),
        slow: await registerWebhook(alice, receiverUrl("slow-1", names.slow), ["pet.created"]),
      };
      const pet = await createPet(alice, { name: "Unlucky", categoryId: 2 });
      const [event] = (await feed(alice, "pet.created")).filter((item) => item.data.id === pet.id);
      const secrets = Object.values(endpoints).map((endpoint) => endpoint.secret);

      const settled = await Promise.all(
        Object.values(endpoints).map((endpoint) => settledAttempts(alice, endpoint.id)),
      );
      const failed = { responseStatus: 500, error: null };
      const late = { responseStatus: null, error: `No response within ${TIMEOUT_MS / 1000} s.` };
      const expected = {
        fail: { status: "failed", answers: Array.from({ length: ATTEMPTS }, () => failed) },
        slow: { status: "succeeded", answers: [late, { responseStatus: 200, error: null }] },
      };
      Object.values(expected).forEach(({ status, answers }, index) => {
        const delivery = settled[index];
        expect(delivery).toMatchObject({ eventId: event?.id, status, nextAttemptAt: null });
        const attempts = delivery?.attempts ?? [];
        expect(attempts).toEqual(answers.map((answer) => expect.objectContaining(answer)));
        // Each retry was made no sooner than the schedule's delay after the attempt before it.
        attempts.slice(1).forEach((attempt, i) => {
          const gap = Date.parse(attempt.attemptedAt) - Date.parse(attempts[i]?.attemptedAt ?? "");
          expect(gap).toBeGreaterThanOrEqual((RETRY_DELAYS[i] ?? 0) * 1000);
        });
      });

      // The receivers saw every attempt: the same id, each signed afresh for its own time.
      for (const [name, { answers }] of [
        [names.fail, expected.fail],
        [names.slow, expected.slow],
      ] as const) {
        const requests = await received(name);
        expect(requests).toHaveLength(answers.length);
        expect(new Set(requests.map((request) => request.headers["webhook-id"]))).toEqual(
          new Set([event?.id]),
        );
        const stamps = requests.map((request) => Number(request.headers["webhook-timestamp"]));
        expect(stamps).toEqual([...stamps].sort((a, b) => a - b));
        for (const request of requests) {
          expect(
            secrets.some((secret) => {
              try {
                return verify(secret, request).id === event?.id;
              } catch {
                return false;
              }
            }),
          ).toBe(true);
        }
      }
      // A failing endpoint is the receiver's problem, not an error of this service.
      expect(logs.lines.filter((line) => line.level === "error")).toEqual([]);
    },
    WHOLE_SCHEDULE_MS + 10_000,
  );

  // workerd prints three lines of its own for every connection it is refused, so the
  // refusal is met once, by a test send, rather than on every step of the schedule: a
  // failed connection is retried as the 500 and the late answer above are.
  it("a refused connection is recorded as a failed connection, without a status", async () => {
    const alice = await freshKey();
    const endpoint = await registerWebhook(alice, refusingUrl(uniqueName("refused")), [
      "pet.created",
    ]);
    const sent = await api(`/v1/webhooks/${endpoint.id}/test`, { method: "POST", key: alice });
    expect(sent.status).toBe(202);
    await sent.json();
    const delivery = await settledAttempts(alice, endpoint.id);
    expect(delivery).toMatchObject({ status: "failed", nextAttemptAt: null });
    expect(delivery.attempts).toEqual([
      expect.objectContaining({
        responseStatus: null,
        error: "The connection to the endpoint failed.",
      }),
    ]);
    expect(logs.lines.filter((line) => line.level === "error")).toEqual([]);
  });

  it(
    "a redirect is an answer, not followed; an endpoint that recovers gets the delivery",
    async () => {
      const alice = await freshKey();
      const names = { redirect: uniqueName("redirect"), flaky: uniqueName("flaky") };
      const redirect = await registerWebhook(alice, receiverUrl("redirect", names.redirect), [
        "pet.created",
      ]);
      const flaky = await registerWebhook(alice, receiverUrl("flaky-2", names.flaky), [
        "pet.created",
      ]);
      await createPet(alice, { name: "Moved on", categoryId: 3 });

      const recovered = await settledAttempts(alice, flaky.id);
      expect(recovered.status).toBe("succeeded");
      expect(recovered.attempts.map((attempt) => attempt.responseStatus)).toEqual([500, 500, 200]);
      const redirected = await eventually(
        "a second attempt at the redirecting endpoint",
        async () => {
          const [delivery] = await deliveriesOf(alice, redirect.id);
          return delivery && delivery.attempts.length >= 2 ? delivery : undefined;
        },
      );
      expect(redirected.attempts.slice(0, 2).map((attempt) => attempt.responseStatus)).toEqual([
        302, 302,
      ]);
      // Only the redirecting address was ever requested, never the one it pointed at.
      expect(
        (await received(names.redirect)).every((request) => request.path.startsWith("/redirect/")),
      ).toBe(true);
      // Deleting the endpoint ends its remaining retries.
      const deleted = await api(`/v1/webhooks/${redirect.id}`, { method: "DELETE", key: alice });
      expect(deleted.status).toBe(204);
      await deleted.arrayBuffer();
    },
    WHOLE_SCHEDULE_MS,
  );
});
