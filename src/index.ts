import { createApp } from "./app.ts";
import type { DeliveryMessage } from "./events/events.queries.ts";
import { runScheduledTasks } from "./scheduled.ts";
import { buildServices } from "./services.ts";
import { handOverBatch } from "./webhooks/delivery-handoff.ts";

export { RateLimiter } from "./rate-limit/rate-limiter.ts";
export { WebhookEndpoint } from "./webhooks/webhook-endpoint.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env) {
    await runScheduledTasks(buildServices(env), Date.now());
  },
  async queue(batch, env) {
    await handOverBatch(buildServices(env).webhookEndpoints, batch);
  },
} satisfies ExportedHandler<Env, DeliveryMessage>;
