import { createApp } from "./app.ts";
import { runScheduledTasks } from "./scheduled.ts";
import { buildServices } from "./services.ts";

export { RateLimiter } from "./rate-limit/rate-limiter.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env) {
    await runScheduledTasks(buildServices(env), Date.now());
  },
} satisfies ExportedHandler<Env>;
