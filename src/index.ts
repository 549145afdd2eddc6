import { createApp } from "./app.ts";
import { handOverBatch } from "./deliveries/delivery-handoff.ts";
import type { DeliveryMessage } from "./outbox/outbox.queries.ts";
import { runScheduledTasks } from "./scheduled.ts";
import { servicesOrReport } from "./services.ts";

export { WebhookEndpoint } from "./deliveries/webhook-endpoint.ts";
export { RateLimiter } from "./rate-limit/rate-limiter.ts";

/**
 * How long a batch waits when the configuration is not valid: a fix is a
 * deploy away, and a delayed retry spends one attempt where an immediate
 * one would spend them all within seconds.
 */
const CONFIGURATION_RETRY_DELAY_SECONDS = 300;

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env) {
    // The next run, five minutes on, finds whatever this one leaves.
    const services = servicesOrReport(env, { work: "scheduled tasks" });
    if (services) await runScheduledTasks(services, Date.now());
  },
  async queue(batch, env) {
    const services = servicesOrReport(env, { work: "webhook deliveries", queue: batch.queue });
    if (!services) {
      batch.retryAll({ delaySeconds: CONFIGURATION_RETRY_DELAY_SECONDS });
      return;
    }
    await handOverBatch(services.webhookEndpoints, batch);
  },
} satisfies ExportedHandler<Env, DeliveryMessage>;
