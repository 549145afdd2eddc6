import { createApp } from "./app.ts";
import { database } from "./db/database.ts";
import { deleteExpiredIdempotencyKeys } from "./pets/idempotency.queries.ts";

export { RateLimiter } from "./rate-limit/rate-limiter.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  /** Hourly: Idempotency-Key records older than their 24-hour window are removed. */
  async scheduled(_controller, env) {
    const removed = await deleteExpiredIdempotencyKeys(database(env.DB), Date.now());
    console.log(
      JSON.stringify({ level: "info", message: "expired idempotency keys removed", removed }),
    );
  },
} satisfies ExportedHandler<Env>;
