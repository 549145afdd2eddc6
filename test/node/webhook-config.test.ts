import path from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { parseConfig } from "../../src/config.ts";
import { buildOpenApiDocument } from "../../src/openapi/openapi-document.ts";
import { repo } from "./cli.ts";

/*
 * What wrangler.toml gives each environment for events and webhooks: the
 * contract's retry schedule and timeout, a queue with its consumer (sized
 * for bursts) and dead-letter queue, and local receivers (http://127.0.0.1)
 * only locally.
 */

const config = (env?: string) =>
  unstable_readConfig({ config: path.join(repo, "wrangler.toml"), env });

describe("wrangler.toml", () => {
  it.each([
    ["local", undefined, "true", "petstore-deliveries"],
    ["staging", "staging", "false", "petstore-deliveries-staging"],
    ["production", "production", "false", "petstore-deliveries-production"],
  ])("%s: its own queue, the contract's schedule, loopback http %s", (_, env, loopback, queue) => {
    const { vars, queues } = config(env);
    expect(vars).toMatchObject({
      WEBHOOK_RETRY_DELAYS: "30,120,600,3600,21600,43200",
      WEBHOOK_TIMEOUT_MS: "10000",
      WEBHOOK_ALLOW_LOOPBACK_HTTP: loopback,
    });
    expect(queues.producers).toEqual([expect.objectContaining({ binding: "DELIVERIES", queue })]);
    expect(queues.consumers).toEqual([
      expect.objectContaining({
        queue,
        max_retries: 6,
        dead_letter_queue: `${queue}-dlq`,
        // Sized for messages of up to 100 events each, handed over as soon as they arrive.
        max_batch_size: 100,
        max_batch_timeout: 0,
        max_concurrency: 20,
      }),
    ]);
  });

  it("documents https endpoints only for staging and production", () => {
    for (const env of ["staging", "production"]) {
      const document = buildOpenApiDocument(parseConfig(config(env).vars)) as unknown as {
        components: {
          schemas: {
            NewWebhook: { properties: { url: { $ref: string } } };
            WebhookUrl: { pattern: string };
          };
        };
      };
      // The body's `url` is the one named schema that states the pattern.
      const { schemas } = document.components;
      expect(schemas.NewWebhook.properties.url.$ref).toBe("#/components/schemas/WebhookUrl");
      const pattern = new RegExp(schemas.WebhookUrl.pattern, "u");
      expect(pattern.test("https://example.com/hook"), env).toBe(true);
      expect(pattern.test("http://127.0.0.1:8788/hook"), env).toBe(false);
    }
  });
});
