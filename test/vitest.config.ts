import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const root = path.resolve(import.meta.dirname, "..");

export default defineConfig({
  root,
  test: {
    reporters: ["default", path.join(root, "test/summary-reporter.ts")],
    // Two runtimes: the Worker's tests run inside workerd, the operator command's in Node.
    projects: [
      {
        plugins: [
          cloudflareTest(async () => ({
            wrangler: { configPath: path.join(root, "wrangler.toml") },
            miniflare: {
              bindings: {
                TEST_MIGRATIONS: await readD1Migrations(path.join(root, "migrations")),
                LOG_LEVEL: "warn",
                ADMIN_TOKEN: "test-admin-token-of-at-least-32-characters",
                SESSION_SECRET: "test-session-secret-at-least-32-characters-long",
              },
            },
          })),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          setupFiles: ["test/worker/support/apply-migrations.ts"],
        },
      },
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/node/**/*.test.ts"],
          testTimeout: 120_000,
          // Each file starts a real `npm start` (migrations, then wrangler dev) before its tests.
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
