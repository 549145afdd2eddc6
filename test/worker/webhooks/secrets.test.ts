import { env } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import type { ReceivedRequest } from "../../receiver/receiver.ts";
import { createPet, expectError } from "../support/assertions.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { api } from "../support/request.ts";
import {
  receivedAtLeast,
  receiverUrl,
  registerWebhook,
  uniqueName,
  type WebhookBody,
} from "../support/webhooks.ts";

/*
 * Rotation without a gap, and registration and rotation made safe to retry
 * with an Idempotency-Key.
 */

afterEach(async () => {
  await env.DB.prepare("DELETE FROM webhooks").run();
});

const freshKey = async () => (await seedUnlimitedKey()).key;

type Created = Required<WebhookBody>;

async function rotate(key: string, id: number, idempotencyKey?: string) {
  const response = await api(`/v1/webhooks/${id}/rotate-secret`, {
    method: "POST",
    key,
    headers: idempotencyKey === undefined ? {} : { "Idempotency-Key": idempotencyKey },
  });
  const body = (await response.json()) as Created;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return { body, replayed: response.headers.get("Idempotent-Replayed") };
}

/** Whether the official library accepts the delivery under this secret. */
function verifies(secret: string, request: ReceivedRequest): boolean {
  try {
    new Webhook(secret).verify(request.body, request.headers);
    return true;
  } catch {
    return false;
  }
}

/** The next delivery the endpoint receives, after one more change. */
async function nextDelivery(key: string, name: string, seen: number): Promise<ReceivedRequest> {
  await createPet(key, { name: "Signed", categoryId: 5 });
  const requests = await receivedAtLeast(name, seen + 1);
  const request = requests[seen];
  if (!request) throw new Error("unreachable");
  return request;
}

/** A day passes for the endpoint's replaced secrets: their overlap ends. */
async function endOverlap(id: number): Promise<void> {
  await env.DB.prepare(
    "UPDATE webhooks SET previous_secrets = (SELECT json_group_array(json_set(value, '$.until', ?)) FROM json_each(previous_secrets)) WHERE id = ?",
  )
    .bind(Date.now() - 1, id)
    .run();
}

describe("rotateWebhookSecret", () => {
  it("200 with the endpoint and a new secret; every recent secret verifies after one and two rotations", async () => {
    const key = await freshKey();
    const name = uniqueName("rotated");
    const endpoint = await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    const first = await rotate(key, endpoint.id);
    const { secret: _, ...shown } = endpoint;
    expect(first.body).toEqual({ ...shown, secret: expect.stringMatching(/^whsec_/) });
    expect(first.body.secret).not.toBe(endpoint.secret);
    expect(first.replayed).toBeNull();

    const once = await nextDelivery(key, name, 0);
    expect(once.headers["webhook-signature"]).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verifies(first.body.secret, once)).toBe(true);
    expect(verifies(endpoint.secret, once)).toBe(true);

    const second = await rotate(key, endpoint.id);
    const twice = await nextDelivery(key, name, 1);
    expect(twice.headers["webhook-signature"]).toMatch(/^v1,\S+ v1,\S+ v1,\S+$/);
    for (const secret of [second.body.secret, first.body.secret, endpoint.secret]) {
      expect(verifies(secret, twice)).toBe(true);
    }
    expect(verifies(`whsec_${btoa("another secret of 32 bytes......")}`, twice)).toBe(false);
    // Newest first: the first signature is the newest secret's.
    const newestOnly = twice.headers["webhook-signature"]?.split(" ")[0] ?? "";
    expect(
      verifies(second.body.secret, {
        ...twice,
        headers: { ...twice.headers, "webhook-signature": newestOnly },
      }),
    ).toBe(true);
  });

  it("after 24 hours only the newest secret signs", async () => {
    const key = await freshKey();
    const name = uniqueName("expired-secrets");
    const endpoint = await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    await rotate(key, endpoint.id);
    const { body: newest } = await rotate(key, endpoint.id);
    await endOverlap(endpoint.id);
    const request = await nextDelivery(key, name, 0);
    expect(request.headers["webhook-signature"]).toMatch(/^v1,\S+$/);
    expect(verifies(newest.secret, request)).toBe(true);
    expect(verifies(endpoint.secret, request)).toBe(false);
  });

  it("an endpoint that has delivered signs with each secret it has now: rotated in, then out", async () => {
    const key = await freshKey();
    const name = uniqueName("signing-keys");
    const endpoint = await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    const before = await nextDelivery(key, name, 0);
    expect(before.headers["webhook-signature"]).toMatch(/^v1,\S+$/);
    expect(verifies(endpoint.secret, before)).toBe(true);

    const { body: rotated } = await rotate(key, endpoint.id);
    const overlapping = await nextDelivery(key, name, 1);
    expect(overlapping.headers["webhook-signature"]).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verifies(rotated.secret, overlapping)).toBe(true);
    expect(verifies(endpoint.secret, overlapping)).toBe(true);

    await endOverlap(endpoint.id);
    const after = await nextDelivery(key, name, 2);
    expect(after.headers["webhook-signature"]).toMatch(/^v1,\S+$/);
    expect(verifies(rotated.secret, after)).toBe(true);
    expect(verifies(endpoint.secret, after)).toBe(false);
  });

  it("with an Idempotency-Key, a retry replays the same secret and rotates nothing more", async () => {
    const key = await freshKey();
    const name = uniqueName("rotated-once");
    const endpoint = await registerWebhook(key, receiverUrl("ok", name), ["pet.created"]);
    const first = await rotate(key, endpoint.id, "rotate-1");
    const again = await rotate(key, endpoint.id, "rotate-1");
    expect(again.body).toEqual(first.body);
    expect(again.replayed).toBe("true");
    const request = await nextDelivery(key, name, 0);
    expect(request.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(verifies(first.body.secret, request)).toBe(true);
    expect(verifies(endpoint.secret, request)).toBe(true);

    const elsewhere = await registerWebhook(key, receiverUrl("ok", uniqueName("other")), ["pet.*"]);
    const reused = await api(`/v1/webhooks/${elsewhere.id}/rotate-secret`, {
      method: "POST",
      key,
      headers: { "Idempotency-Key": "rotate-1" },
    });
    await expectError(reused, 422, "idempotency_key_reused");
    const stranger = await api(`/v1/webhooks/${endpoint.id}/rotate-secret`, {
      method: "POST",
      key: await freshKey(),
    });
    await expectError(stranger, 404, "not_found");
  });
});

describe("createWebhook with an Idempotency-Key", () => {
  it("makes one endpoint per key; the replay carries the same secret; another body gives 422", async () => {
    const key = await freshKey();
    const json = { url: receiverUrl("ok", uniqueName("once")), types: ["pet.*"] };
    const send = (body: unknown) =>
      api("/v1/webhooks", {
        method: "POST",
        key,
        json: body,
        headers: { "Idempotency-Key": "k1" },
      });
    const first = await send(json);
    const created = (await first.json()) as Created;
    expect(first.status).toBe(201);
    const replay = await send(json);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await replay.json()).toEqual(created);
    const listed = await api("/v1/webhooks", { key });
    expect(((await listed.json()) as WebhookBody[]).map((webhook) => webhook.id)).toEqual([
      created.id,
    ]);
    await expectError(await send({ ...json, types: ["order.*"] }), 422, "idempotency_key_reused");
  });
});
