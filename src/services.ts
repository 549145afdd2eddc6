import { type Database, database } from "./db/database.ts";
import type { DeliveryMessage } from "./events/events.queries.ts";
import type { KeyPrefix } from "./keys/key-format.ts";
import { type KeyStore, keyStore } from "./keys/key-store.ts";
import { type RateLimitClient, rateLimitClient } from "./rate-limit/rate-limit-client.ts";
import { oncePer } from "./utils/once-per.ts";
import {
  type WebhookEndpointClient,
  webhookEndpointClient,
} from "./webhooks/webhook-endpoint-client.ts";
import { type WebhookSettings, webhookSettings } from "./webhooks/webhook-settings.ts";

/**
 * What handlers and modules work with instead of the bindings: the database,
 * the key store, the limiter client, the queue of webhook deliveries, and
 * the settings that shape new keys and deliveries.
 */
export interface Services {
  db: Database;
  keys: KeyStore;
  limiter: RateLimitClient;
  /** Where the outbox's dispatchers put webhook deliveries. */
  events: Queue<DeliveryMessage>;
  webhooks: WebhookSettings;
  /** Each webhook endpoint's Durable Object: its deliveries. */
  webhookEndpoints: WebhookEndpointClient;
  /** `ps_live_` in production, `ps_test_` everywhere else. */
  keyPrefix: KeyPrefix;
  /** The account that owns keys an operator makes without naming one. */
  operatorEmail: string;
}

/**
 * The services over one environment's bindings, made once per isolate: they
 * hold no request's state (each call opens its own stub), so every request
 * can share them.
 */
export const buildServices = oncePer((env: Env): Services => {
  const db = database(env.DB);
  return {
    db,
    keys: keyStore(env.API_KEYS, db),
    limiter: rateLimitClient(env.RATE_LIMITER),
    events: env.EVENTS,
    webhooks: webhookSettings(env),
    webhookEndpoints: webhookEndpointClient(env.WEBHOOK_ENDPOINT),
    keyPrefix: env.KEY_PREFIX === "ps_live_" ? "ps_live_" : "ps_test_",
    operatorEmail: env.OPERATOR_EMAIL,
  };
});
