import path from "node:path";
import { FLOOR_CONFIG, ROOT, wrangler } from "./servers.ts";

export const SEED_PETS = 500;
const STATUSES = ["available", "pending", "sold"] as const;

/** Limits no bench run can reach, so every measured request is admitted yet still counted. */
const BENCH_LIMITS = { perMinute: 100_000_000, perDay: 1_000_000_000 };

export function newPetBody(index: number): string {
  return JSON.stringify({
    name: `Bench pet ${index}`,
    categoryId: (index % 7) + 1,
    status: STATUSES[index % STATUSES.length],
  });
}

/** Creates the tables in the isolated state of the Worker a wrangler config describes. */
export async function applyMigrationsTo(config: string, persistTo: string): Promise<void> {
  await wrangler([
    "d1",
    "migrations",
    "apply",
    "DB",
    "--local",
    "--persist-to",
    persistTo,
    "--config",
    config,
  ]);
}

/** Creates the pets table in both isolated states: the real Worker's and the floor's. */
export async function applyMigrations(apiState: string, floorState: string): Promise<void> {
  await Promise.all([
    applyMigrationsTo(path.join(ROOT, "wrangler.toml"), apiState),
    applyMigrationsTo(FLOOR_CONFIG, floorState),
  ]);
}

/**
 * Makes an Enterprise key with limits that will not bind through the API's
 * own admin endpoint, as the operator command does, and returns the key.
 */
export async function createBenchKey(
  apiOrigin: string,
  adminToken: string,
  account = "bench@petstore.invalid",
): Promise<string> {
  const response = await fetch(`${apiOrigin}/admin/keys`, {
    method: "POST",
    headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      account,
      plan: "enterprise",
      ...BENCH_LIMITS,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 201) {
    throw new Error(`making the bench key got ${response.status}: ${text.slice(0, 300)}`);
  }
  const { key } = JSON.parse(text) as { key: string };
  return key;
}

/**
 * Adds the pets through each server's own create route (the real one with the
 * key, so this also proves auth and the limiter admit it), a few at a time.
 */
export async function seedPets(url: string, headers: Record<string, string>): Promise<void> {
  const parallel = 8;
  let next = 0;
  const worker = async () => {
    while (next < SEED_PETS) {
      const index = next++;
      const response = await fetch(url, {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json" },
        body: newPetBody(index),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      if (response.status !== 201) {
        throw new Error(`seeding ${url} got ${response.status}: ${text.slice(0, 300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}
