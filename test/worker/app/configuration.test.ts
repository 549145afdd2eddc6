import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  env,
  getQueueResult,
} from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../../src/index.ts";
import type { DeliveryMessage } from "../../../src/outbox/outbox.queries.ts";
import { expectError } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { captureLogs } from "../support/logs.ts";
import { api, jsonOf } from "../support/request.ts";

/*
 * The environment's variables are read once, by one schema: what the API
 * cannot run without fails closed (a bland 500, the variable named in the
 * log), an optional secret switches off its own feature, and the work
 * outside requests waits for a valid configuration.
 */

const logs = captureLogs();
const ADMIN_TOKEN = env.ADMIN_TOKEN;

/** The log line that reports a configuration refused, naming exactly these variables. */
const refused = (...variables: string[]) =>
  expect.objectContaining({
    level: "error",
    message: expect.stringContaining(`configuration is not valid: ${variables[0]}`),
    variables,
  });

describe("a required variable missing or malformed", () => {
  it.each<[string, Partial<Env>]>([
    ["OPERATOR_EMAIL", { OPERATOR_EMAIL: undefined }],
    ["GET_PET_SUNSET_AT", { GET_PET_SUNSET_AT: "next year" }],
    ["WEBHOOK_RETRY_DELAYS", { WEBHOOK_RETRY_DELAYS: "30,,600" }],
    ["WEBHOOK_TIMEOUT_MS", { WEBHOOK_TIMEOUT_MS: "ten seconds" }],
    ["PRODUCTION_URL", { PRODUCTION_URL: "api.petstore.example.com" }],
    ["LOG_LEVEL", { LOG_LEVEL: "verbose" }],
  ])("%s: every request answers 500 internal_error, the log names it", async (name, bindings) => {
    const { key } = await seedKey();
    for (const path of ["/v1/pets", "/health", "/v1/openapi.json"]) {
      const error = await expectError(await api(path, { key, bindings }), 500, "internal_error");
      expect(error.message).not.toContain(name);
    }
    expect(logs.lines.filter((line) => line.message !== "request")).toEqual([
      refused(name),
      refused(name),
      refused(name),
    ]);
  });

  it("an unknown KEY_PREFIX is refused, not taken for ps_test_", async () => {
    const { key } = await seedKey();
    const bindings = { KEY_PREFIX: "ps_prod_" };
    await expectError(await api("/v1/pets", { key, bindings }), 500, "internal_error");
    expect(logs.lines).toContainEqual(refused("KEY_PREFIX"));
  });

  it("ps_live_ is a known prefix: the operator's new key carries it", async () => {
    const response = await api("/admin/keys", {
      method: "POST",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
      json: { plan: "free" },
      bindings: { KEY_PREFIX: "ps_live_" },
    });
    expect(response.status).toBe(201);
    expect(await jsonOf<{ key: string }>(response)).toMatchObject({
      key: expect.stringMatching(/^ps_live_/),
    });
  });
});

describe("an optional secret too short", () => {
  it("ADMIN_TOKEN: the operator routes do not exist (404), and the log says why", async () => {
    const token = ADMIN_TOKEN.slice(0, 31);
    const response = await api("/admin/keys", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
      json: { plan: "free" },
      bindings: { ADMIN_TOKEN: token },
    });
    await expectError(response, 404, "not_found");
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        level: "error",
        message: "ADMIN_TOKEN is shorter than 32 characters; the operator endpoints are off",
      }),
    );
  });

  it("SESSION_SECRET: the API still answers; the dashboard's forms fail as an error page", async () => {
    const bindings = { SESSION_SECRET: "too-short" };
    const { key } = await seedKey();
    const pets = await api("/v1/pets", { key, bindings });
    expect(pets.status).toBe(200);
    await pets.arrayBuffer();
    const page = await api("/dashboard/sign-in", { bindings });
    expect(page.status).toBe(500);
    expect(page.headers.get("Content-Type")).toMatch(/^text\/html/);
    await page.arrayBuffer();
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        level: "error",
        message: expect.stringMatching(/^SESSION_SECRET/),
      }),
    );
  });
});

describe("the work outside requests, with a configuration not valid", () => {
  const bad = { ...env, WEBHOOK_TIMEOUT_MS: "0" };

  it("the queue consumer hands the whole batch back for later, with a delay, and logs why", async () => {
    const batch = createMessageBatch<DeliveryMessage>("petstore-events", [
      {
        id: "message-1",
        timestamp: new Date(),
        attempts: 1,
        body: { webhookId: 1, eventIds: ["evt_0000000000000000000000000a"] },
      },
    ]);
    // The runtime's test batch records that the batch was retried, not the delay asked for.
    const retryAll = vi.spyOn(batch, "retryAll");
    const ctx = createExecutionContext();
    await worker.queue(batch, bad);
    const result = await getQueueResult(batch, ctx);
    expect(retryAll).toHaveBeenCalledWith({ delaySeconds: 300 });
    expect(result.retryBatch).toEqual({ retry: true });
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toEqual([]);
    expect(logs.lines).toEqual([refused("WEBHOOK_TIMEOUT_MS")]);
  });

  it("the scheduled job does nothing this round and logs why", async () => {
    await worker.scheduled(createScheduledController(), bad);
    expect(logs.lines).toEqual([refused("WEBHOOK_TIMEOUT_MS")]);
  });
});
