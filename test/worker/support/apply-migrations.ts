import { applyD1Migrations, env } from "cloudflare:test";

// Runs before each test file. Files share one runtime per Vitest worker
// (isolate: false), so each starts from the tables a fresh D1 has after its
// migrations: empty, but for the rows a migration seeds (the catalogue's
// first categories), which are made again. Id sequences run on, so no id
// names an object an earlier file left behind.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

/** The migrations that write rows rather than schema: run again after the tables are emptied. */
const SEEDING_MIGRATIONS = ["0002_seed_categories.sql"];

const { results } = await env.DB.prepare(
  "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name <> 'd1_migrations'",
).all<{ name: string; sql: string }>();
const virtual = results
  .filter(({ sql }) => /^CREATE VIRTUAL TABLE/i.test(sql))
  .map(({ name }) => name);
const fullText = results
  .filter(({ sql }) => /^CREATE VIRTUAL TABLE\s+\S+\s+USING\s+fts5/i.test(sql))
  .map(({ name }) => name);
// A virtual table keeps its index in shadow tables (an FTS5 table's refuse writes:
// "may not be modified"): an FTS5 table is emptied by its own 'delete-all' command,
// an R*Tree by deleting its rows.
const shadow = (name: string) => virtual.some((table) => name.startsWith(`${table}_`));
const plain = results
  .map(({ name }) => name)
  .filter((name) => !fullText.includes(name) && !shadow(name));
const seeds = env.TEST_MIGRATIONS.filter(({ name }) => SEEDING_MIGRATIONS.includes(name));
if (seeds.length !== SEEDING_MIGRATIONS.length) {
  throw new Error(`the seeding migrations ${SEEDING_MIGRATIONS.join(", ")} are not all there`);
}
await env.DB.batch([
  env.DB.prepare("PRAGMA defer_foreign_keys = on"),
  ...plain.map((name) => env.DB.prepare(`DELETE FROM "${name}"`)),
  ...fullText.map((name) =>
    env.DB.prepare(`INSERT INTO "${name}"("${name}") VALUES ('delete-all')`),
  ),
  ...seeds.flatMap(({ queries }) => queries.map((query) => env.DB.prepare(query))),
]);
