import { env } from "cloudflare:test";
import { findOrCreateAccount } from "../../../src/accounts/accounts.queries.ts";
import {
  createKey,
  type NewKeyOptions,
  publishKeys,
  revokeKey,
} from "../../../src/keys/key-changes.ts";
import { keyRecordOf } from "../../../src/keys/key-projection.ts";
import type { KeyRecord } from "../../../src/keys/key-record.ts";
import { findKeyWithAccount, type KeyWithAccount } from "../../../src/keys/keys.queries.ts";
import type { Limits, Plan } from "../../../src/rate-limit/plans.ts";
import { buildServices } from "../../../src/services.ts";

export interface SeedKeyOptions extends Omit<NewKeyOptions, "limits"> {
  /** The key's own plan (default business); `account` makes it follow its account's plan. */
  plan?: Plan | "account";
  limits?: Limits;
  /** Default: an account of its own, so no test meets another's cap of working keys. */
  account?: string;
  revoked?: boolean;
  /** Unix milliseconds of the key's own expiry, written past the bounds a new key's life has. */
  expiresAt?: number;
  /** Unix milliseconds at which its grace period ends, as after a roll. */
  graceEndsAt?: number;
}

/** Writes a column of the key's row as no change would, then publishes the row as any change does. */
async function overwrite(hash: string, column: "expires_at" | "grace_ends_at", value: number) {
  const services = testServices();
  await env.DB.prepare(`UPDATE api_keys SET ${column} = ?, version = version + 1 WHERE hash = ?`)
    .bind(value, hash)
    .run();
  const row = await findKeyWithAccount(services.db, hash);
  if (row) await publishKeys(services, [row]);
}

export interface SeededKey {
  key: string;
  hash: string;
  record: KeyRecord;
  row: KeyWithAccount;
}

/** The services a request would get, over the test's real bindings. */
export function testServices() {
  return buildServices(env);
}

/**
 * Makes a real key the way the dashboard and the operator command do,
 * through the module that changes keys: a D1 row, its KV record and its
 * Durable Object's policy.
 */
export async function seedKey(options: SeedKeyOptions = {}): Promise<SeededKey> {
  const services = testServices();
  const email = options.account ?? `seed-${crypto.randomUUID()}@example.com`;
  const { account } = await findOrCreateAccount(services.db, email, services.config.operatorEmail);
  const plan = options.plan ?? "business";
  const limits =
    plan === "account"
      ? { plan: null, perMinute: null, perDay: null }
      : {
          plan,
          perMinute: options.limits?.perMinute ?? null,
          perDay: options.limits?.perDay ?? null,
        };
  const { scopes, expiresInSeconds, allowedRanges } = options;
  const created = await createKey(services, account, {
    limits,
    ...(scopes && { scopes }),
    ...(expiresInSeconds && { expiresInSeconds }),
    ...(allowedRanges && { allowedRanges }),
  });
  if (!created.ok) throw new Error(`${email} is at its cap of working keys`);
  const hash = created.row.hash;
  if (options.expiresAt !== undefined) await overwrite(hash, "expires_at", options.expiresAt);
  if (options.graceEndsAt !== undefined)
    await overwrite(hash, "grace_ends_at", options.graceEndsAt);
  if (options.revoked) await revokeKey(services, hash);
  const row = await findKeyWithAccount(services.db, hash);
  if (!row) throw new Error("the seeded key vanished");
  return { key: created.key, hash, record: keyRecordOf(row), row };
}

/** A key no test runs out of: Enterprise, a million requests a minute and a day. */
export function seedUnlimitedKey(
  options: Pick<SeedKeyOptions, "account"> = {},
): Promise<SeededKey> {
  return seedKey({ ...options, plan: "enterprise", limits: { perMinute: 1e6, perDay: 1e6 } });
}
