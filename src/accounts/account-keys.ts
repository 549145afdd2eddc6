import { database } from "../db/database.ts";
import { generateApiKey, hashApiKey, type KeyPrefix, lastFourOf } from "../keys/key-format.ts";
import type { KeyRecord } from "../keys/key-record.ts";
import { findKeyRecord, saveKeyRecord } from "../keys/key-store.ts";
import { limitsOf } from "../rate-limit/plans.ts";
import { rateLimitClient } from "../rate-limit/rate-limit-client.ts";
import {
  type AccountKey,
  insertAccountKey,
  markAccountKeyExpiring,
  markAccountKeyRevoked,
} from "./account-keys.queries.ts";
import type { Account } from "./accounts.queries.ts";

/** How long a rolled key keeps working beside its successor. */
export const ROLL_GRACE_MS = 24 * 60 * 60 * 1000;

export interface CreatedKey {
  /** The full key: shown once, never stored. */
  key: string;
  listed: AccountKey;
}

function keyPrefix(env: Env): KeyPrefix {
  return env.KEY_PREFIX === "ps_live_" ? "ps_live_" : "ps_test_";
}

/** A version newer than any before it, so the key's Durable Object adopts the change. */
function nextVersion(record: KeyRecord | null): number {
  return Math.max((record?.version ?? 0) + 1, Date.now());
}

/**
 * Makes a key for the account on the account's plan. The KV record goes first:
 * should the D1 row then fail, the orphan key was never shown to anyone.
 */
export async function createAccountKey(env: Env, account: Account): Promise<CreatedKey> {
  const key = generateApiKey(keyPrefix(env));
  const hash = await hashApiKey(key);
  const createdAt = new Date();
  await saveKeyRecord(env.API_KEYS, hash, {
    account: account.email,
    plan: account.plan,
    createdAt: createdAt.toISOString(),
    revoked: false,
    lastFour: lastFourOf(key),
    version: createdAt.getTime(),
  });
  const listed: AccountKey = {
    hash,
    accountId: account.id,
    lastFour: lastFourOf(key),
    createdAt,
    revokedAt: null,
    expiresAt: null,
  };
  await insertAccountKey(database(env.DB), listed);
  return { key, listed };
}

/**
 * Refuses the key from the next request on: the KV record for every
 * location, and the key's Durable Object for the time KV takes to spread.
 */
export async function revokeAccountKey(env: Env, hash: string): Promise<void> {
  const record = await findKeyRecord(env.API_KEYS, hash);
  const version = nextVersion(record);
  const limits = limitsOf(record ?? { plan: "free" });
  if (record) await saveKeyRecord(env.API_KEYS, hash, { ...record, revoked: true, version });
  await rateLimitClient(env.RATE_LIMITER).applyPolicy(hash, { limits, revoked: true, version });
  await markAccountKeyRevoked(database(env.DB), hash, new Date());
}

export interface RolledKey extends CreatedKey {
  /** When the old key stops working. */
  oldKeyExpiresAt: Date;
}

/** A new key now; the old one keeps working for the grace period, then is refused. */
export async function rollAccountKey(
  env: Env,
  account: Account,
  oldHash: string,
): Promise<RolledKey> {
  const created = await createAccountKey(env, account);
  const oldKeyExpiresAt = new Date(Date.now() + ROLL_GRACE_MS);
  const record = await findKeyRecord(env.API_KEYS, oldHash);
  if (record) {
    await saveKeyRecord(env.API_KEYS, oldHash, {
      ...record,
      expiresAt: oldKeyExpiresAt.toISOString(),
      version: nextVersion(record),
    });
  }
  await markAccountKeyExpiring(database(env.DB), oldHash, oldKeyExpiresAt);
  return { ...created, oldKeyExpiresAt };
}
