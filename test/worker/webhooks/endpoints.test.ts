import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { messages } from "../../../src/errors.ts";
import { createPet, expectError } from "../support/assertions.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { captureLogs } from "../support/logs.ts";
import { api, MANY_REQUESTS, send } from "../support/request.ts";
import {
  receivedAtLeast,
  receiverUrl,
  registerWebhook,
  uniqueName,
  type WebhookBody,
} from "../support/webhooks.ts";

const MAX_WEBHOOKS = 10;
const LIMIT_REACHED = messages.limitReached(MAX_WEBHOOKS, "webhook endpoints", "delete one");

/** A key of an account of its own, so each test starts with no endpoints. */
async function freshKey(account?: string): Promise<string> {
  return (await seedUnlimitedKey({ account })).key;
}

// Pet events go to every endpoint: none outlives its test to hear the next one's.
afterEach(async () => {
  await env.DB.prepare("DELETE FROM webhooks").run();
});

const create = (key: string | undefined, json: unknown) =>
  api("/v1/webhooks", { method: "POST", key, json });

async function listed(key: string): Promise<WebhookBody[]> {
  const res = await api("/v1/webhooks", { key });
  expect(res.status).toBe(200);
  return (await res.json()) as WebhookBody[];
}

describe("createWebhook, listWebhooks, deleteWebhook", () => {
  it("201 with the endpoint and its secret; listed oldest first without it, by every key of the account", async () => {
    const key = await freshKey();
    const url = receiverUrl("ok", uniqueName("created"));
    const res = await create(key, { url, types: ["order.*", "pet.created"] });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Required<WebhookBody>;
    expect(Object.keys(body).sort()).toEqual([
      "createdAt",
      "id",
      "secret",
      "status",
      "types",
      "url",
    ]);
    expect(body).toMatchObject({ url, types: ["order.*", "pet.created"] });
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);
    const second = await registerWebhook(key, receiverUrl("fail", uniqueName("second")), ["pet.*"]);
    expect(second.secret).not.toBe(body.secret);

    const { secret: _, ...first } = body;
    const { secret: __, ...other } = second;
    expect(await listed(key)).toEqual([first, other]);
    expect(await listed(await freshKey())).toEqual([]);
  });

  it("another account's endpoints are neither listed nor deletable; deleting answers 204 once, then 404", async () => {
    const owner = await seedUnlimitedKey();
    const colleague = await freshKey(owner.row.account.email);
    const stranger = await freshKey();
    const endpoint = await registerWebhook(owner.key, receiverUrl("ok", uniqueName("owned")));
    expect((await listed(colleague)).map((item) => item.id)).toEqual([endpoint.id]);
    expect(await listed(stranger)).toEqual([]);

    await expectError(
      await api(`/v1/webhooks/${endpoint.id}`, { method: "DELETE", key: stranger }),
      404,
      "not_found",
    );
    await expectError(
      await api(`/v1/webhooks/${endpoint.id}/deliveries`, { key: stranger }),
      404,
      "not_found",
    );
    const deleted = await api(`/v1/webhooks/${endpoint.id}`, { method: "DELETE", key: colleague });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect(await listed(owner.key)).toEqual([]);
    for (const id of [String(endpoint.id), "9007199254740991", "0", "abc", "1.5"]) {
      await expectError(
        await api(`/v1/webhooks/${id}`, { method: "DELETE", key: owner.key }),
        404,
        "not_found",
      );
      await expectError(
        await api(`/v1/webhooks/${id}/deliveries`, { key: owner.key }),
        404,
        "not_found",
      );
    }
  });

  it("405 for methods the paths do not serve, 401 without a key", async () => {
    for (const [path, method, allow] of [
      ["/v1/webhooks", "PUT", "GET, HEAD, POST"],
      ["/v1/webhooks/1", "PUT", "GET, HEAD, PATCH, DELETE"],
      ["/v1/webhooks/1/deliveries", "POST", "GET, HEAD"],
      ["/v1/webhooks/1/test", "GET", "POST"],
      ["/v1/webhooks/1/recover", "GET", "POST"],
      ["/v1/webhooks/1/deliveries/1/retry", "GET", "POST"],
      ["/v1/events", "POST", "GET, HEAD"],
    ] as const) {
      const res = await api(path, { method, key: await freshKey() });
      expect(res.headers.get("Allow")).toBe(allow);
      await expectError(res, 405, "method_not_allowed");
    }
    for (const [path, method] of [
      ["/v1/webhooks", "GET"],
      ["/v1/webhooks", "POST"],
      ["/v1/webhooks/1", "DELETE"],
      ["/v1/webhooks/1/deliveries", "GET"],
    ] as const) {
      await expectError(await api(path, { method }), 401, "unauthorized");
    }
  });
});

describe("getWebhook", () => {
  it("200 with the endpoint as listed, without its secret, for every key of the account", async () => {
    const owner = await seedUnlimitedKey();
    const colleague = await freshKey(owner.row.account.email);
    const endpoint = await registerWebhook(owner.key, receiverUrl("ok", uniqueName("fetched")));
    const [asListed] = await listed(owner.key);
    for (const key of [owner.key, colleague]) {
      const res = await api(`/v1/webhooks/${endpoint.id}`, { key });
      expect(res.status).toBe(200);
      expect(res.headers.get("ETag")).toMatch(/^W?\/?"/);
      const body = (await res.json()) as WebhookBody;
      expect(body).toEqual(asListed);
      expect(body).not.toHaveProperty("secret");
    }
    const paused = await api(`/v1/webhooks/${endpoint.id}`, {
      method: "PATCH",
      key: owner.key,
      json: { enabled: false },
    });
    await paused.arrayBuffer();
    const res = await api(`/v1/webhooks/${endpoint.id}`, { key: colleague });
    expect(((await res.json()) as WebhookBody).status).toBe("disabled");
  });

  it("404 for another account's endpoint or an id that names none; 401 without a key", async () => {
    const owner = await freshKey();
    const endpoint = await registerWebhook(owner, receiverUrl("ok", uniqueName("private")));
    const stranger = await freshKey();
    await expectError(
      await api(`/v1/webhooks/${endpoint.id}`, { key: stranger }),
      404,
      "not_found",
    );
    for (const id of ["9007199254740991", "0", "abc", "1.5"]) {
      await expectError(await api(`/v1/webhooks/${id}`, { key: owner }), 404, "not_found");
    }
    await expectError(await api(`/v1/webhooks/${endpoint.id}`), 401, "unauthorized");
    const deleted = await api(`/v1/webhooks/${endpoint.id}`, { method: "DELETE", key: owner });
    await deleted.arrayBuffer();
    await expectError(await api(`/v1/webhooks/${endpoint.id}`, { key: owner }), 404, "not_found");
  });
});

describe("at most 10 endpoints per account", () => {
  it("the 11th gets 409 limit_reached; deleting one makes room again", async () => {
    const key = await freshKey();
    const made: WebhookBody[] = [];
    for (let i = 0; i < MAX_WEBHOOKS; i++) {
      made.push(await registerWebhook(key, receiverUrl("ok", uniqueName(`cap-${i}`))));
    }
    const refused = await expectError(
      await create(key, { url: receiverUrl("ok", "eleventh"), types: ["pet.*"] }),
      409,
      "limit_reached",
    );
    expect(refused.message).toBe(LIMIT_REACHED);
    const deleted = await api(`/v1/webhooks/${made[0]?.id}`, { method: "DELETE", key });
    expect(deleted.status).toBe(204);
    await deleted.arrayBuffer();
    await registerWebhook(key, receiverUrl("ok", uniqueName("room-again")));
    expect(await listed(key)).toHaveLength(MAX_WEBHOOKS);
  });

  it(
    "is exact under concurrency: 25 parallel creates give 10 × 201 and 15 × 409",
    MANY_REQUESTS,
    async () => {
      const owner = await seedUnlimitedKey();
      const keys = [owner.key, await freshKey(owner.row.account.email)];
      const replies = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          send("/v1/webhooks", {
            method: "POST",
            key: keys[i % 2],
            json: { url: receiverUrl("ok", uniqueName(`race-${i}`)), types: ["pet.*"] },
          }),
        ),
      );
      const statuses = replies.map((reply) => reply.status).sort();
      expect(statuses).toEqual([...Array(10).fill(201), ...Array(15).fill(409)]);
      expect(await listed(owner.key)).toHaveLength(MAX_WEBHOOKS);
    },
  );
});

describe("bodies that cannot be an endpoint", () => {
  it("400 with the field's path for missing, malformed or unknown fields", async () => {
    const key = await freshKey();
    const url = receiverUrl("ok", "never");
    const cases: [unknown, string[]][] = [
      [{ types: ["pet.*"] }, ["url"]],
      [{ url }, ["types"]],
      [{ url, types: [] }, ["types"]],
      [{ url, types: ["pet.*", "pet.*"] }, ["types"]],
      [{ url, types: ["pet.adopted"] }, ["types.0"]],
      [{ url, types: "pet.*" }, ["types"]],
      [{ url: 42, types: ["pet.*"] }, ["url"]],
      [{ url: `https://example.com/${"x".repeat(2048)}`, types: ["pet.*"] }, ["url"]],
      [{ url, types: ["pet.*"], secret: "whsec_mine" }, ["secret"]],
      [[url], ["body"]],
    ];
    for (const [json, paths] of cases) {
      await expectError(await create(key, json), 400, "invalid_request", { paths });
    }
    expect(await listed(key)).toEqual([]);
  });

  it("400 for JSON that does not parse, 415 for another media type, 413 above 16 KiB", async () => {
    const key = await freshKey();
    const raw = (body: string, type = "application/json") =>
      api("/v1/webhooks", { method: "POST", key, body, headers: { "Content-Type": type } });
    await expectError(await raw("{"), 400, "invalid_json");
    await expectError(
      await raw('{"url":"x","types":[]}', "text/plain"),
      415,
      "unsupported_media_type",
    );
    await expectError(
      await raw(
        JSON.stringify({
          url: "https://example.com/",
          types: ["pet.*"],
          pad: "x".repeat(17 * 1024),
        }),
      ),
      413,
      "payload_too_large",
    );
  });
});

describe("the signing secret is shown once", () => {
  const logs = captureLogs();

  it("appears in no later reply (list, deliveries, events) and in no log line", async () => {
    const key = await freshKey();
    const name = uniqueName("secret");
    // Every request logged, as in production, not only failures as in the other tests.
    const logged = { key, bindings: { LOG_LEVEL: "info" } };
    const res = await api("/v1/webhooks", {
      ...logged,
      method: "POST",
      json: { url: receiverUrl("fail", name), types: ["pet.created"] },
    });
    const endpoint = (await res.json()) as Required<WebhookBody>;
    expect(res.status).toBe(201);
    await createPet(key, { name: "Secretive", categoryId: 4 });
    await receivedAtLeast(name, 2);
    const later: string[] = [];
    for (const path of ["/v1/webhooks", `/v1/webhooks/${endpoint.id}/deliveries`, "/v1/events"]) {
      const reply = await api(path, logged);
      expect(reply.status).toBe(200);
      later.push(await reply.text());
    }
    expect(later[1]).toContain('"responseStatus":500');
    const requestLines = logs.lines.filter((line) => line.message === "request");
    expect(requestLines.length).toBeGreaterThanOrEqual(4);
    const secretBytes = endpoint.secret.slice("whsec_".length);
    for (const text of [...later, ...logs.lines.map((line) => JSON.stringify(line))]) {
      expect(text).not.toContain(secretBytes);
    }
    const deleted = await api(`/v1/webhooks/${endpoint.id}`, { method: "DELETE", key });
    expect(deleted.status).toBe(204);
    await deleted.arrayBuffer();
  });
});
