import { createApp } from "./app.ts";
import type { DeliveryMessage } from "./events/event-records.ts";
import { runScheduledTasks } from "./scheduled.ts";
import { buildServices } from "./services.ts";
import { deliverBatch } from "./webhooks/webhook-delivery.ts";

export { RateLimiter } from "./rate-limit/rate-limiter.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env) {
    await runScheduledTasks(buildServices(env), Date.now());
  },
  async queue(batch, env) {
    await deliverBatch(buildServices(env), batch);
  },
} satisfies ExportedHandler<Env, DeliveryMessage>;
