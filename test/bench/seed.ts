import type { Caller } from "./callers.ts";
import { BENCH_LIMITS, callerAccountsSql, floorKeysSql } from "./callers.ts";
import { encoded, type Send } from "./flows.ts";
import {
  DEPARTING_ANIMALS,
  departingAnimalsSql,
  ORDER_ANIMALS,
  orderAnimalsSql,
  shopperSheltersSql,
} from "./seeded-animals.ts";
import { API_CONFIG, wrangler } from "./servers.ts";

/** Creates the tables in the isolated state of a Worker served with `config` (the real one's by default). */
export async function applyMigrationsTo(persistTo: string, config = API_CONFIG): Promise<void> {
  const args = ["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo];
  await wrangler([...args, "--config", config]);
}

/**
 * Runs SQL on the local D1 of a Worker served with the real configuration,
 * while its server may be running: SQLite's locking lets the server see the
 * new rows at its next query.
 */
export function executeSql(persistTo: string, sql: string, timeoutMs?: number) {
  const args = ["d1", "execute", "DB", "--local", "--persist-to", persistTo];
  return wrangler([...args, "--config", API_CONFIG, "--command", sql], {
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

/**
 * Prepares both databases before the servers start: the tables, the
 * animals the order rows adopt (so their ids are 1 to N), the callers'
 * accounts, the shopper's shelters and the animals the deletion row
 * deletes; in the floor's, also the keys it acts for. The API's callers get their keys
 * through its admin endpoint instead.
 */
export async function prepareDatabases(apiState: string, floorState: string): Promise<void> {
  await Promise.all([applyMigrationsTo(apiState), applyMigrationsTo(floorState)]);
  const departing = departingAnimalsSql(ORDER_ANIMALS + 1, ORDER_ANIMALS + DEPARTING_ANIMALS);
  const common = [orderAnimalsSql(), callerAccountsSql(), shopperSheltersSql(), departing];
  await Promise.all([
    executeSql(apiState, common.join("\n")),
    executeSql(floorState, [...common, floorKeysSql()].join("\n")),
  ]);
}

/**
 * Gives a floor's database, its tables made, the callers' accounts and the
 * keys the floor acts for: without them the floor's creates, which record
 * the account whose key made the animal, have no account to record.
 */
export async function prepareFloorCallers(floorState: string): Promise<void> {
  await executeSql(floorState, [callerAccountsSql(), floorKeysSql()].join("\n"));
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
    body: JSON.stringify({ account, plan: "enterprise", ...BENCH_LIMITS }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 201) {
    throw new Error(`making the bench key got ${response.status}: ${text.slice(0, 300)}`);
  }
  const { key } = JSON.parse(text) as { key: string };
  return key;
}

/** Sends the seeding's requests to a server over HTTP, with each caller's key if it takes keys. */
export function sendTo(origin: string, keys?: Record<Caller, string>): Send {
  return async ({ caller, method, path, body }) => {
    const content = body === undefined ? undefined : encoded(body);
    const headers: Record<string, string> = content ? { "Content-Type": content.contentType } : {};
    if (keys) headers.Authorization = `Bearer ${keys[caller]}`;
    const response = await fetch(`${origin}${path}`, {
      method,
      headers,
      ...(content ? { body: content.payload } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: await response.text() };
  };
}
