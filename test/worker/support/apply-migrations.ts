import { applyD1Migrations, env } from "cloudflare:test";

// Runs before each test file. Files share one runtime per Vitest worker
// (isolate: false), so each starts from empty tables, as on a fresh D1; id
// sequences run on, so no id names an object an earlier file left behind.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
const { results } = await env.DB.prepare(
  "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name <> 'd1_migrations'",
).all<{ name: string }>();
await env.DB.batch([
  env.DB.prepare("PRAGMA defer_foreign_keys = on"),
  ...results.map(({ name }) => env.DB.prepare(`DELETE FROM "${name}"`)),
]);
