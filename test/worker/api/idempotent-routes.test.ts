import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { v1Routes } from "../../../src/routes/v1-routes.ts";
import { createPet } from "../support/assertions.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { inlineReferences, type OpenApiDocument } from "../support/openapi-contract.ts";
import { imageOf } from "../support/photos.ts";
import { api, jsonOf, send } from "../support/request.ts";
import { receiverUrl, registerWebhook, uniqueName } from "../support/webhooks.ts";

/*
 * Idempotency is a trait the route table gives a route: the header is
 * documented on it alone, its claim names the route's own operation and the
 * request by meaning (path parameters and body), and its replays say so. A
 * route without the trait takes no notice of the header.
 */

let key: string;

beforeAll(async () => {
  ({ key } = await seedUnlimitedKey());
});

// Endpoints registered here would receive the animals' events of the tests after.
afterEach(async () => {
  await env.DB.prepare("DELETE FROM webhooks").run();
});

/** The operation the record of `idempotencyKey` names, if one was kept. */
async function recordedOperation(idempotencyKey: string): Promise<string | undefined> {
  const row = await env.DB.prepare(
    "SELECT operation FROM idempotency_records WHERE idempotency_key = ?",
  )
    .bind(idempotencyKey)
    .first<{ operation: string }>();
  return row?.operation;
}

describe("a route the table marks idempotent", () => {
  it("replays the first reply to the same request by meaning, whatever its layout", async () => {
    const idempotencyKey = uniqueName("by-meaning");
    const headers = { "Idempotency-Key": idempotencyKey, "Content-Type": "application/json" };
    const first = await send("/v1/pets", {
      method: "POST",
      key,
      headers,
      body: JSON.stringify({ name: "Meant", categoryId: 2 }),
    });
    expect(first.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const again = await send("/v1/pets", {
      method: "POST",
      key,
      headers,
      body: '{ "categoryId" : 2,\n  "name": "Meant" }',
    });
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(await recordedOperation(idempotencyKey)).toBe("createPet");
  });

  it("counts the path parameters in the request: one key on another endpoint is refused", async () => {
    const hooks = [1, 2].map(() => registerWebhook(key, receiverUrl("ok", uniqueName("rotate"))));
    const [one, other] = await Promise.all(hooks);
    const headers = { "Idempotency-Key": uniqueName("rotation") };
    const rotate = (id: number | undefined) =>
      send(`/v1/webhooks/${id}/rotate-secret`, { method: "POST", key, headers });
    const first = await rotate(one?.id);
    expect(first.status).toBe(200);
    const replayed = await rotate(one?.id);
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replayed.body).toEqual(first.body);
    const elsewhere = await rotate(other?.id);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.code).toBe("idempotency_key_reused");
  });

  it("identifies a body that is not JSON by its bytes and type, for the same animal", async () => {
    const [pet, other] = await Promise.all([
      createPet(key, { name: "Pictured", categoryId: 1 }),
      createPet(key, { name: "Elsewhere", categoryId: 1 }),
    ]);
    const headers = { "Idempotency-Key": uniqueName("photo"), "Content-Type": "image/png" };
    const upload = (petId: number, seed: number) =>
      send(`/v1/pets/${petId}/photos`, {
        method: "POST",
        key,
        headers,
        body: imageOf("image/png", 128, seed),
      });
    const first = await upload(pet.id, 1);
    expect(first.status).toBe(201);
    const replayed = await upload(pet.id, 1);
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replayed.body).toEqual(first.body);
    expect((await upload(pet.id, 2)).status).toBe(422);
    expect((await upload(other.id, 1)).status).toBe(422);
  });

  it("cannot share a claim with another route: the same key on another operation is refused", async () => {
    const idempotencyKey = uniqueName("two-routes");
    const headers = { "Idempotency-Key": idempotencyKey };
    const made = await api("/v1/pets", {
      method: "POST",
      key,
      headers,
      json: { name: "First use", categoryId: 1 },
    });
    const { id: petId } = await jsonOf<{ id: number }>(made);
    expect(made.status).toBe(201);
    const ordered = await send("/v1/store/orders", {
      method: "POST",
      key,
      headers,
      json: { petId },
    });
    expect(ordered.status).toBe(422);
    expect(ordered.body.code).toBe("idempotency_key_reused");
    expect(await recordedOperation(idempotencyKey)).toBe("createPet");
  });
});

describe("a route without the trait", () => {
  it("ignores the header: each request is a change of its own, and nothing is recorded", async () => {
    const idempotencyKey = uniqueName("unmarked");
    const headers = { "Idempotency-Key": idempotencyKey };
    const post = (name: string) =>
      send("/v1/categories", { method: "POST", key, headers, json: { name } });
    const first = await post(uniqueName("Unmarked"));
    const second = await post(uniqueName("Unmarked"));
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await recordedOperation(idempotencyKey)).toBeUndefined();
  });
});

describe("the document", () => {
  it("states the header, and the one sentence on it, on exactly the routes the table marks", async () => {
    const tables = Object.values(v1Routes({ allowLoopbackHttp: false }));
    const marked = tables
      .flatMap((table) => Object.entries(table))
      .filter(([, route]) => "idempotent" in route && route.idempotent)
      .map(([operationId]) => operationId)
      .sort();
    expect(marked).toEqual([
      "addPetPhoto",
      "createPet",
      "createShelter",
      "createWebhook",
      "placeOrder",
      "rotateWebhookSecret",
    ]);
    const res = await api("/openapi.json");
    const document = inlineReferences(await jsonOf<OpenApiDocument>(res));
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    const taking = operations.filter((operation) =>
      operation.parameters?.some((parameter) => parameter.name === "Idempotency-Key"),
    );
    expect(taking.map((operation) => operation.operationId).sort()).toEqual(marked);
    const endings = taking.map((operation) =>
      (operation as { description?: string }).description?.split("\n\n").at(-1),
    );
    expect(new Set(endings).size).toBe(1);
    expect(endings[0]).toMatch(/^With an `Idempotency-Key`/);
  });
});
