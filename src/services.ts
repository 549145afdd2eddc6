import { type Config, ConfigurationError, parseConfig } from "./config.ts";
import { type Database, database } from "./db/database.ts";
import { type WebhookEndpointClient, webhookEndpointClient } from "./deliveries/endpoint-client.ts";
import { type KeyStore, keyStore } from "./keys/key-store.ts";
import { log } from "./logging.ts";
import type { DeliveryMessage } from "./outbox/outbox.queries.ts";
import { type PhotoStore, photoStore } from "./photos/photo-store.ts";
import { type RateLimitClient, rateLimitClient } from "./rate-limit/rate-limit-client.ts";
import { oncePer } from "./utils/once-per.ts";

/**
 * What handlers, modules and Durable Objects work with instead of the
 * bindings: the database, the key store, the limiter client, the queue of
 * webhook deliveries, each endpoint's delivering object, the bucket of
 * photos, and the environment's configuration.
 */
export interface Services {
  /**
   * Where this work's statements run: for a request, its own D1 session
   * (see middleware/read-consistency.ts); elsewhere, the binding, whose
   * statements all go to the primary.
   */
  db: Database;
  keys: KeyStore;
  limiter: RateLimitClient;
  /** The queue of webhook deliveries, (event, endpoint) pairs, where the outbox's relay puts them. */
  deliveries: Queue<DeliveryMessage>;
  /** Each webhook endpoint's Durable Object: its deliveries. */
  webhookEndpoints: WebhookEndpointClient;
  /** The bytes of animals' photos. */
  photos: PhotoStore;
  config: Config;
}

/**
 * The services over one environment's bindings, made once per isolate: they
 * hold no request's state (each call opens its own stub), so every request
 * can share them. A configuration that is not valid throws a
 * ConfigurationError and is not kept, so each request that meets it says so
 * in the log, and the first after a fix works.
 */
export const buildServices = oncePer((env: Env): Services => {
  const config = parseConfig(env);
  const db = database(env.DB);
  return {
    db,
    keys: keyStore(env.API_KEYS, db),
    limiter: rateLimitClient(env.RATE_LIMITER),
    deliveries: env.DELIVERIES,
    webhookEndpoints: webhookEndpointClient(env.WEBHOOK_ENDPOINT),
    photos: photoStore(env.PHOTOS),
    config,
  };
});

/**
 * The services, or undefined when the configuration is not valid: that is
 * logged with the variables at fault (and `fields`, which say what was
 * refused), and the caller fails closed or leaves its work for later.
 */
export function servicesOrReport(env: Env, fields: Record<string, unknown>): Services | undefined {
  try {
    return buildServices(env);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    log("error", error.message, { ...fields, variables: error.variables });
    return undefined;
  }
}
