import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import ServersFirstSequencer from "./servers-first-sequencer.ts";

const root = path.resolve(import.meta.dirname, "..");

/** A whole number from the shell, or the default: how property tests pick their seed and size. */
function wholeNumber(name: "SEED" | "RUNS", fallback: number, least: number): string {
  const text = process.env[name] || String(fallback);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < least || value > 2_147_483_647) {
    throw new Error(`${name}=${text}: expected a whole number from ${least} to 2147483647`);
  }
  return String(value);
}

export default defineConfig({
  root,
  test: {
    reporters: ["default", path.join(root, "test/summary-reporter.ts")],
    sequence: { sequencer: ServersFirstSequencer },
    // Vitest's default is one worker fewer than the cores: one test file at a time on two.
    maxWorkers: 2,
    // Two runtimes: the Worker's tests run inside workerd, the operator command's in Node.
    projects: [
      {
        plugins: [
          cloudflareTest(async ({ inject }) => ({
            wrangler: { configPath: path.join(root, "wrangler.toml") },
            // workerd's verbose report repeats, with its stack, each connection a test cuts or
            // refuses on purpose; the Worker's own logs and unhandled errors print without it.
            verbose: false,
            miniflare: {
              bindings: {
                TEST_MIGRATIONS: await readD1Migrations(path.join(root, "migrations")),
                LOG_LEVEL: "warn",
                ADMIN_TOKEN: "test-admin-token-of-at-least-32-characters",
                SESSION_SECRET: "test-session-secret-at-least-32-characters-long",
                CONSISTENCY_TOKEN_SECRET: "test-consistency-token-secret-of-32-characters",
                // The contract's schedule with near-zero delays and a short timeout, so a failing
                // delivery ends within a test; the health threshold is backdated where tested.
                WEBHOOK_RETRY_DELAYS: "0.05,0.05,0.05,0.05,0.05,0.05",
                WEBHOOK_TIMEOUT_MS: "1500",
                WEBHOOK_DISABLE_AFTER_SECONDS: "30",
                // Where the receiver started by the global setup listens, and a port where nothing does.
                WEBHOOK_RECEIVER_PORT: String(inject("receiverPort")),
                WEBHOOK_CLOSED_PORT: String(inject("closedPort")),
                // Property tests: a fixed seed, so a failure replays, and cases per property.
                SEED: wholeNumber("SEED", 1, 0),
                RUNS: wholeNumber("RUNS", 100, 1),
              },
            },
          })),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          // One workerd per Vitest worker for all its files, not one per file (about 2 s
          // each); the setup file empties D1 before each file instead.
          isolate: false,
          globalSetup: ["test/receiver/global-setup.ts"],
          setupFiles: ["test/worker/support/apply-migrations.ts"],
        },
      },
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/node/**/*.test.ts"],
          // One real `npm start` (migrations, then wrangler dev) for the files that can share it.
          globalSetup: ["test/node/shared-server.ts"],
          testTimeout: 120_000,
          // A file needing its own state or flags starts its own `npm start` before its tests.
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
