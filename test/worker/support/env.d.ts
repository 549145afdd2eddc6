import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      WEBHOOK_RECEIVER_PORT: string;
      WEBHOOK_CLOSED_PORT: string;
      SEED: string;
      RUNS: string;
    }
  }
}
