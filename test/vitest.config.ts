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
          cloudflareTest(async ({ inject }) => ({
            wrangler: { configPath: path.join(root, "wrangler.toml") },
            miniflare: {
              bindings: {
                TEST_MIGRATIONS: await readD1Migrations(path.join(root, "migrations")),
                LOG_LEVEL: "warn",
                ADMIN_TOKEN: "test-admin-token-of-at-least-32-characters",
                SESSION_SECRET: "test-session-secret-at-least-32-characters-long",
                // The contract's schedule with near-zero delays and a short timeout, so a failing
                // delivery ends within a test; the health threshold is backdated where tested.
                WEBHOOK_RETRY_DELAYS: "0.05,0.05,0.05,0.05,0.05,0.05",
                WEBHOOK_TIMEOUT_MS: "500",
                WEBHOOK_DISABLE_AFTER_SECONDS: "30",
                // Where the receiver started by the global setup listens, and a port where nothing does.
                WEBHOOK_RECEIVER_PORT: String(inject("receiverPort")),
                WEBHOOK_CLOSED_PORT: String(inject("closedPort")),
              },
            },
          })),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          globalSetup: ["test/receiver/global-setup.ts"],
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
