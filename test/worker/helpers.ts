import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { generateApiKey, hashApiKey, lastFourOf } from "../../src/keys/key-format.ts";
import type { KeyRecord, Limits, Plan } from "../../src/keys/key-record.ts";
import { saveKeyRecord } from "../../src/keys/key-store.ts";

export const ORIGIN = "https://petstore.test";

export interface SeedKeyOptions {
  plan?: Plan;
  limits?: Limits;
  account?: string;
  revoked?: boolean;
  expiresAt?: string;
}

/** Makes a real key and stores its record in the local KV, as the operator command does. */
export async function seedKey(
  options: SeedKeyOptions = {},
): Promise<{ key: string; hash: string; record: KeyRecord }> {
  const key = generateApiKey("ps_test_");
  const hash = await hashApiKey(key);
  const record: KeyRecord = {
    account: options.account ?? "test@example.com",
    plan: options.plan ?? "business",
    limits: options.limits,
    createdAt: new Date().toISOString(),
    revoked: options.revoked ?? false,
    expiresAt: options.expiresAt,
    lastFour: lastFourOf(key),
    version: Date.now(),
  };
  await saveKeyRecord(env.API_KEYS, hash, record);
  return { key, hash, record };
}

export interface ApiRequestInit extends RequestInit {
  key?: string;
  json?: unknown;
}

/** Sends a request through the Worker's real fetch handler. */
export function api(path: string, init: ApiRequestInit = {}): Promise<Response> {
  const { key, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (key !== undefined) headers.set("Authorization", `Bearer ${key}`);
  let body = rest.body;
  if (json !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(json);
  }
  return exports.default.fetch(new Request(`${ORIGIN}${path}`, { ...rest, headers, body }));
}

/** Reads the body as JSON, so every test consumes what it receives. */
export async function jsonOf<T = unknown>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
