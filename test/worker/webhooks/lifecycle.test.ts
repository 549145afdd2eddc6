import { env, runInDurableObject } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { createPet, expectError } from "../support/assertions.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
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
  registerWebhook,
  settledDeliveries,
  uniqueName,
  updateWebhook,
  type WebhookBody,
} from "../support/webhooks.ts";

/*
 * An endpoint's life after registration: changed, paused and resumed,
 * disabled by the service and enabled by its owner, tested, retried and
 * recovered. Each test has an account of its own.
 */

const DISABLE_AFTER_MS = Number(env.WEBHOOK_DISABLE_AFTER_SECONDS) * 1000;

afterEach(async () => {
  await env.DB.prepare("DELETE FROM webhooks").run();
});

const freshKey = async () => (await seedUnlimitedKey()).key;

async function listed(key: string): Promise<WebhookBody[]> {
  const response = await api("/v1/webhooks", { key });
  expect(response.status).toBe(200);
  return (await response.json()) as WebhookBody[];
}

async function post<T>(key: string, path: string, status: number, json?: unknown): Promise<T> {
  const response = await api(path, { method: "POST", key, json });
  const body = (await response.json()) as T;
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body;
}

/** The endpoint once the service has disabled it. */
function disabled(key: string, id: number): Promise<WebhookBody> {
  return eventually(`endpoint ${id} disabled`, async () =>
    (await listed(key)).find((webhook) => webhook.id === id && webhook.status === "disabled"),
  );
}

const verify = (secret: string, request: { body: string; headers: Record<string, string> }) =>
  new Webhook(secret).verify(request.body, request.headers) as EventBody;

describe("updateWebhook", () => {
  it("changes url and types for the deliveries after it, under the rules of creation", async () => {
    const key = await freshKey();
    const before = uniqueName("before");
    const after = uniqueName("after");
    const endpoint = await registerWebhook(key, receiverUrl("ok", before), ["pet.created"]);
    const changed = await updateWebhook(key, endpoint.id, {
      url: receiverUrl("ok", after),
      types: ["pet.*"],
    });
    expect(changed).toEqual({
      id: endpoint.id,
      url: receiverUrl("ok", after),
      types: ["pet.*"],
      status: "enabled",
      createdAt: endpoint.createdAt,
    });
    expect(await listed(key)).toEqual([changed]);
    const pet = await createPet(key, { name: "Redirected", categoryId: 2 });
    const [request] = await receivedAtLeast(after, 1);
    expect((JSON.parse(request?.body ?? "{}") as EventBody).data.id).toBe(pet.id);
    expect(await received(before)).toEqual([]);
  });

  it("400 for a body that is not a change or a URL creation refuses; 404 for another account's", async () => {
    const key = await freshKey();
    const endpoint = await registerWebhook(key, receiverUrl("ok", uniqueName("kept")), ["pet.*"]);
    const patch = (json: unknown, as = key) =>
      api(`/v1/webhooks/${endpoint.id}`, { method: "PATCH", key: as, json });
    await expectError(await patch({}), 400, "invalid_request", { paths: ["body"] });
    await expectError(await patch({ enabled: "no" }), 400, "invalid_request", {
      paths: ["enabled"],
    });
    await expectError(await patch({ secret: "x" }), 400, "invalid_request", {
      paths: ["secret", "body"],
    });
    await expectError(await patch({ types: [] }), 400, "invalid_request", { paths: ["types"] });
    for (const url of ["https://10.0.0.1/hook", "https://[3fff::1]/hook", "http://example.com/"]) {
      await expectError(await patch({ url }), 400, "invalid_request", { paths: ["url"] });
    }
    await expectError(await patch({ enabled: false }, await freshKey()), 404, "not_found");
    expect((await listed(key))[0]).toMatchObject({ status: "enabled", url: endpoint.url });
  });
});

describe("pausing", () => {
  it("records the events of a paused endpoint as skipped; resumed, it gets later events; recover sends the skipped", async () => {
    const key = await freshKey();
    const name = uniqueName("paused");
    const endpoint = await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    const paused = await updateWebhook(key, endpoint.id, { enabled: false });
    expect(paused.status).toBe("disabled");
    expect(paused.disabledReason).toBeUndefined();
    const missed = await createPet(key, { name: "Missed", categoryId: 3 });
    const [skipped] = await settledDeliveries(key, endpoint.id, 1);
    expect(skipped).toMatchObject({ status: "skipped", attempts: [], nextAttemptAt: null });
    expect(await received(name)).toEqual([]);

    await updateWebhook(key, endpoint.id, { enabled: true });
    const seen = await createPet(key, { name: "Seen", categoryId: 3 });
    const [first] = await receivedAtLeast(name, 1);
    expect((JSON.parse(first?.body ?? "{}") as EventBody).data.id).toBe(seen.id);

    const since = new Date(Date.now() - 60_000).toISOString();
    const recovered = await post<{ queued: number }>(
      key,
      `/v1/webhooks/${endpoint.id}/recover`,
      202,
      { since },
    );
    expect(recovered).toEqual({ queued: 1 });
    const requests = await receivedAtLeast(name, 2);
    const missedEvent = (await feed(key, "pet.created")).find(
      (event) => event.data.id === missed.id,
    );
    expect(requests[1]?.headers["webhook-id"]).toBe(missedEvent?.id);
    expect(verify(endpoint.secret, requests[1] as never).id).toBe(missedEvent?.id);
    const deliveries = await settledDeliveries(key, endpoint.id, 2);
    expect(deliveries.map((delivery) => [delivery.eventId, delivery.status])).toEqual([
      [expect.any(String), "succeeded"],
      [missedEvent?.id, "succeeded"],
    ]);
    // Once received, nothing is recovered again.
    expect(await post(key, `/v1/webhooks/${endpoint.id}/recover`, 202, { since })).toEqual({
      queued: 0,
    });
  });
});

describe("recoverWebhook", () => {
  it("sends again only the endpoint's own failed deliveries: what it wanted when they were committed", async () => {
    const key = await freshKey();
    const failing = uniqueName("narrow");
    const endpoint = await registerWebhook(key, receiverUrl("fail", failing), ["pet.created"]);
    const since = new Date(Date.now() - 60_000).toISOString();
    for (const name of ["Kept", "Also kept"]) {
      const pet = await createPet(key, { name, categoryId: 4 });
      // Not wanted when committed: the endpoint asked for pet.created only.
      const edited = await api(`/v1/pets/${pet.id}`, {
        method: "PATCH",
        key,
        json: { name: `${name}!` },
      });
      expect(edited.status).toBe(200);
      await edited.arrayBuffer();
    }
    const failed = await settledDeliveries(key, endpoint.id, 2);
    expect(failed.map((delivery) => delivery.status)).toEqual(["failed", "failed"]);

    // Widened, and pointed at a receiver that answers: the updates are wanted from now on only.
    const healthy = uniqueName("widened");
    await updateWebhook(key, endpoint.id, { url: receiverUrl("ok", healthy), types: ["pet.*"] });
    const recovered = await post<{ queued: number }>(
      key,
      `/v1/webhooks/${endpoint.id}/recover`,
      202,
      { since },
    );
    expect(recovered).toEqual({ queued: 2 });
    await receivedAtLeast(healthy, 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const arrived = (await received(healthy)).map(
      (request) => JSON.parse(request.body) as EventBody,
    );
    expect(arrived.map((event) => event.type)).toEqual(["pet.created", "pet.created"]);
    expect(arrived.map((event) => event.id).sort()).toEqual(
      failed.map((delivery) => delivery.eventId).sort(),
    );
    // Queued once each: a second recovery finds nothing failed.
    await settledDeliveries(key, endpoint.id, 2);
    expect(await post(key, `/v1/webhooks/${endpoint.id}/recover`, 202, { since })).toEqual({
      queued: 0,
    });
  });
});

describe("health", () => {
  it("410 Gone disables the endpoint at once; its owner enables it again", async () => {
    const key = await freshKey();
    const endpoint = await registerWebhook(key, receiverUrl("gone", uniqueName("gone")), [
      "pet.created",
    ]);
    await createPet(key, { name: "Gone", categoryId: 4 });
    const off = await disabled(key, endpoint.id);
    expect(off.disabledReason).toBe("The endpoint answered 410 Gone.");
    const [delivery] = await settledDeliveries(key, endpoint.id, 1);
    expect(delivery?.status).toBe("failed");
    expect(delivery?.attempts.map((attempt) => attempt.responseStatus)).toEqual([410]);

    const on = await updateWebhook(key, endpoint.id, { enabled: true });
    expect(on.status).toBe("enabled");
    expect(on).not.toHaveProperty("disabledReason");
  });

  it("disables an endpoint with no success since a failure older than the threshold", async () => {
    const key = await freshKey();
    const endpoint = await registerWebhook(key, receiverUrl("fail", uniqueName("failing")), [
      "pet.created",
    ]);
    await createPet(key, { name: "First failure", categoryId: 5 });
    await settledDeliveries(key, endpoint.id, 1);
    expect((await listed(key))[0]?.status).toBe("enabled");
    // The first failure, moved back to just past the threshold rather than waited for.
    const object = env.WEBHOOK_ENDPOINT.get(env.WEBHOOK_ENDPOINT.idFromName(String(endpoint.id)));
    const firstFailure = Date.now() - DISABLE_AFTER_MS - 1000;
    await runInDurableObject(object, (_, state) => {
      expect(state.storage.kv.get("firstFailureAt")).toEqual(expect.any(Number));
      state.storage.kv.put("firstFailureAt", firstFailure);
    });
    await createPet(key, { name: "Still failing", categoryId: 5 });
    const off = await disabled(key, endpoint.id);
    expect(off.disabledReason).toBe(
      `No successful delivery since a failure at ${new Date(firstFailure).toISOString()}.`,
    );
    // Enabled again, its health starts afresh: the next failure does not disable it.
    await updateWebhook(key, endpoint.id, { enabled: true });
    await createPet(key, { name: "Failing again", categoryId: 5 });
    await settledDeliveries(key, endpoint.id, 3);
    expect((await listed(key))[0]?.status).toBe("enabled");
  });

  it("a success after failures clears the failure on record: the endpoint's health starts afresh", async () => {
    const key = await freshKey();
    const endpoint = await registerWebhook(key, receiverUrl("flaky-1", uniqueName("recovers")), [
      "pet.created",
    ]);
    await createPet(key, { name: "Recovering", categoryId: 5 });
    const [delivery] = await settledDeliveries(key, endpoint.id, 1);
    expect(delivery?.attempts.map((attempt) => attempt.responseStatus)).toEqual([500, 200]);
    const object = env.WEBHOOK_ENDPOINT.get(env.WEBHOOK_ENDPOINT.idFromName(String(endpoint.id)));
    const mark = await runInDurableObject(object, (_, state) =>
      state.storage.kv.get("firstFailureAt"),
    );
    expect(mark).toBeUndefined();
  });

  it("waits at least Retry-After on 429 before the next attempt", async () => {
    const key = await freshKey();
    const endpoint = await registerWebhook(key, receiverUrl("throttle-1", uniqueName("busy")), [
      "pet.created",
    ]);
    await createPet(key, { name: "Throttled", categoryId: 6 });
    const [delivery] = await settledDeliveries(key, endpoint.id, 1, 5000);
    expect(delivery?.status).toBe("succeeded");
    const [first, second] = delivery?.attempts ?? [];
    expect(first?.responseStatus).toBe(429);
    expect(second?.responseStatus).toBe(200);
    const gap = Date.parse(second?.attemptedAt ?? "") - Date.parse(first?.attemptedAt ?? "");
    expect(gap).toBeGreaterThanOrEqual(1000);
  });
});

describe("test sends", () => {
  it("202 with the delivery; a signed webhook.test reaches only that endpoint, not the feed", async () => {
    const key = await freshKey();
    const names = { tested: uniqueName("tested"), other: uniqueName("other") };
    const tested = await registerWebhook(key, receiverUrl("ok", names.tested), ["pet.*"]);
    await registerWebhook(key, receiverUrl("ok", names.other), ["pet.*"]);
    const delivery = await post<DeliveryBody>(key, `/v1/webhooks/${tested.id}/test`, 202);
    expect(delivery).toMatchObject({ status: "pending", attempts: [] });
    const [request] = await receivedAtLeast(names.tested, 1);
    const event = verify(tested.secret, request as never);
    expect(event).toEqual({
      id: delivery.eventId,
      type: "webhook.test",
      createdAt: expect.any(String),
      data: { webhookId: tested.id },
    });
    expect(event.id).toMatch(/^evt_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(await received(names.other)).toEqual([]);
    expect((await feed(key)).map((item) => item.id)).not.toContain(delivery.eventId);
    const [listedDelivery] = await settledDeliveries(key, tested.id, 1);
    expect(listedDelivery).toMatchObject({ id: delivery.id, status: "succeeded" });
  });

  it("count toward no health: a test answered 410 leaves the endpoint enabled", async () => {
    const key = await freshKey();
    const endpoint = await registerWebhook(key, receiverUrl("gone", uniqueName("tested-gone")), [
      "order.cancelled",
    ]);
    await post(key, `/v1/webhooks/${endpoint.id}/test`, 202);
    const [delivery] = await settledDeliveries(key, endpoint.id, 1);
    expect(delivery).toMatchObject({ status: "failed" });
    expect(delivery?.attempts).toHaveLength(1);
    expect((await listed(key))[0]?.status).toBe("enabled");
  });
});

describe("retryDelivery", () => {
  it("sends the delivery's event again now, same webhook-id, as a new attempt", async () => {
    const key = await freshKey();
    const name = uniqueName("retried");
    const endpoint = await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    await createPet(key, { name: "Again", categoryId: 7 });
    const [delivered] = await settledDeliveries(key, endpoint.id, 1);
    if (!delivered) throw new Error("unreachable");
    const retried = await post<DeliveryBody>(
      key,
      `/v1/webhooks/${endpoint.id}/deliveries/${delivered.id}/retry`,
      202,
    );
    expect(retried).toMatchObject({ id: delivered.id, eventId: delivered.eventId });
    const requests = await receivedAtLeast(name, 2);
    expect(requests.map((request) => request.headers["webhook-id"])).toEqual([
      delivered.eventId,
      delivered.eventId,
    ]);
    for (const request of requests)
      expect(verify(endpoint.secret, request).id).toBe(delivered.eventId);
    const [after] = await settledDeliveries(key, endpoint.id, 1);
    expect(after?.attempts).toHaveLength(2);

    const unknown = await api(`/v1/webhooks/${endpoint.id}/deliveries/999999/retry`, {
      method: "POST",
      key,
    });
    await expectError(unknown, 404, "not_found");
  });
});

describe("listDeliveries", () => {
  it("lists deliveries newest first, paged, each with its attempts", async () => {
    const key = await freshKey();
    const endpoint = await registerWebhook(key, receiverUrl("ok", uniqueName("paged")), [
      "pet.created",
    ]);
    for (const name of ["One", "Two", "Three"]) await createPet(key, { name, categoryId: 1 });
    const deliveries = await settledDeliveries(key, endpoint.id, 3);
    const ids = deliveries.map((delivery) => delivery.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const first = await api(`/v1/webhooks/${endpoint.id}/deliveries?limit=2`, { key });
    expect(((await first.json()) as DeliveryBody[]).map((delivery) => delivery.id)).toEqual(
      ids.slice(0, 2),
    );
    expect(first.headers.get("Link")).toMatch(/rel="next"/);
    expect(await deliveriesOf(key, endpoint.id)).toEqual(deliveries);
  });
});
