import { applyD1Migrations, env } from "cloudflare:test";

// Runs before each test file; storage is isolated per file, and applying is idempotent.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
