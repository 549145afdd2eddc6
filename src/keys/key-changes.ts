import { type Account, findAccountByEmail } from "../accounts/accounts.queries.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import { describeError, log } from "../logging.ts";
import type { Plan } from "../rate-limit/plans.ts";
import type { RateLimitClient } from "../rate-limit/rate-limit-client.ts";
import { SCOPES } from "../scopes.ts";
import { generateApiKey, hashApiKey, lastFourOf } from "./key-format.ts";
import { keyRecordOf, policyOf } from "./key-projection.ts";
import type { KeyRestrictions } from "./key-restrictions.ts";
import { workingUntil } from "./key-state.ts";
import type { KeyStore } from "./key-store.ts";
import {
  insertKeyUnderCap,
  revokeKeyOnce,
  rollKeyOnce,
  setAccountPlan as setAccountPlanRow,
  setKeyLimits as setKeyLimitsRow,
} from "./key-writes.queries.ts";
import {
  findKeyWithAccount,
  type KeyLimits,
  type KeyWithAccount,
  markKeySynced,
  unsyncedKeys,
  WORKING_KEYS_BY_PLAN,
} from "./keys.queries.ts";

/**
 * The one writer of keys: made (with their scopes, expiry and address
 * ranges), revoked, rolled, given limits of their own, or moved with their
 * account to another plan. The dashboard and the admin endpoint (and through
 * it the operator command) call nothing else. A key's expiry needs no change
 * here: every isolate compares its record's instant itself.
 *
 * Every change is one conditional write in D1, the system of record, so
 * concurrent changes serialise in the database. Then each key it touched is
 * published from the row just written: its KV record rewritten and its
 * policy pushed to its Durable Object. A change is done only when both took
 * it; a failure there reaches the caller as 503, repeating the change
 * finishes it, and `publishLaggingKeys` (scheduled) catches the rest. New
 * keys are the exception (see `publishOrDefer`).
 */

/** What a key's change works with: its row, its cached record, its limiter's policy, the key prefix. */
interface KeyServices {
  db: Database;
  keys: KeyStore;
  limiter: RateLimitClient;
  config: Pick<Config, "keyPrefix">;
}

/** Limits that follow the account's plan. */
export const FOLLOW_ACCOUNT: KeyLimits = { plan: null, perMinute: null, perDay: null };

/** How many times a publish follows a row that changed under it before leaving it to the scheduled job. */
const PUBLISH_ROUNDS = 3;

/**
 * Pushes the key's row to KV and to its Durable Object, then records that
 * both hold it. KV keeps whichever write lands last, so a publish of an older
 * row can land after a newer one: the row is read again afterwards, and if it
 * moved on meanwhile, its newer version is published too. So the publisher
 * that finishes last always leaves the newest row in KV. (The Durable Object
 * keeps the newest policy by version whatever the order.)
 */
async function publishKey(
  services: KeyServices,
  row: KeyWithAccount,
  rounds: number,
): Promise<void> {
  const record = keyRecordOf(row);
  await Promise.all([
    services.keys.save(row.hash, record),
    services.limiter.applyPolicy(row.hash, policyOf(record)),
  ]);
  const current = await findKeyWithAccount(services.db, row.hash);
  if (current && current.version > row.version && rounds > 1) {
    return publishKey(services, current, rounds - 1);
  }
  await markKeySynced(services.db, row.hash, row.version);
}

/** Publishes each key's row (see `publishKey`); fails if any key's stores did not take it. */
export async function publishKeys(services: KeyServices, rows: KeyWithAccount[]): Promise<void> {
  await Promise.all(rows.map((row) => publishKey(services, row, PUBLISH_ROUNDS)));
}

/**
 * Publishing a new key, or a roll, can wait: until KV has a new key's record
 * requests find it in D1, its Durable Object takes its policy from its first
 * request, and a rolled key's grace period outlasts the scheduled job's
 * interval many times over. So a failure here is left to that job rather
 * than losing a key nobody has seen yet.
 */
async function publishOrDefer(services: KeyServices, rows: KeyWithAccount[]): Promise<void> {
  try {
    await publishKeys(services, rows);
  } catch (error) {
    log("warn", "key publication deferred to the scheduled job", {
      keys: rows.map((row) => `…${row.lastFour}`),
      error: describeError(error),
    });
  }
}

/**
 * What a new key is made with beyond its account: limits of its own (else it
 * follows its account's plan), and what narrows it (`KeyRestrictionsSchema`
 * checks those): scopes (else all), a life (else none) and address ranges
 * (else any), all fixed from then on.
 */
export type NewKeyOptions = KeyRestrictions & { limits?: KeyLimits };

type CreatedKey =
  | { ok: true; key: string; row: KeyWithAccount }
  | { ok: false; reason: "cap"; cap: number };

/** A new key for the account, under its plan's cap of working keys. */
export async function createKey(
  services: KeyServices,
  account: Pick<Account, "id" | "plan">,
  options: NewKeyOptions = {},
): Promise<CreatedKey> {
  const key = generateApiKey(services.config.keyPrefix);
  const hash = await hashApiKey(key);
  const now = Date.now();
  const { expiresInSeconds } = options;
  const newKey = {
    hash,
    accountId: account.id,
    lastFour: lastFourOf(key),
    limits: options.limits ?? FOLLOW_ACCOUNT,
    scopes: options.scopes ?? SCOPES,
    expiresAt: expiresInSeconds === undefined ? null : now + expiresInSeconds * 1000,
    allowedRanges: options.allowedRanges ?? null,
  };
  const row = await insertKeyUnderCap(services.db, newKey, now);
  if (!row) return { ok: false, reason: "cap", cap: WORKING_KEYS_BY_PLAN[account.plan] };
  await publishOrDefer(services, [row]);
  return { ok: true, key, row };
}

/** Refuses the key from the next request on. Undefined when no key has this hash. */
export async function revokeKey(
  services: KeyServices,
  hash: string,
): Promise<KeyWithAccount | undefined> {
  const row = await revokeKeyOnce(services.db, hash, Date.now());
  if (row) await publishKeys(services, [row]);
  return row;
}

type RolledKey =
  | { ok: true; key: string; successor: KeyWithAccount; old: KeyWithAccount; worksUntil: Date }
  | { ok: false; reason: "not_found" }
  | { ok: false; reason: "not_rollable"; old: KeyWithAccount };

/**
 * A successor now, with the old key's limits, scopes, ranges and expiry; the
 * old key keeps working until the earlier of its grace's end and its
 * expiry, then is refused. Only a working key that was never rolled can be
 * rolled; the successor takes its place under the cap, so a roll is never
 * refused for the cap.
 */
export async function rollKey(
  services: KeyServices,
  accountId: number,
  oldHash: string,
): Promise<RolledKey> {
  const key = generateApiKey(services.config.keyPrefix);
  const newHash = await hashApiKey(key);
  const { old, successor } = await rollKeyOnce(
    services.db,
    { oldHash, accountId, newHash, newLastFour: lastFourOf(key) },
    Date.now(),
  );
  if (!old || old.accountId !== accountId) return { ok: false, reason: "not_found" };
  // The batch gave the old key its grace period exactly when it added the successor.
  const worksUntil = workingUntil(old);
  if (!successor || !worksUntil) return { ok: false, reason: "not_rollable", old };
  await publishOrDefer(services, [old, successor]);
  return { ok: true, key, successor, old, worksUntil };
}

/** Gives one key limits of its own, or (with FOLLOW_ACCOUNT) makes it follow its account again. */
export async function setKeyLimits(
  services: KeyServices,
  hash: string,
  limits: KeyLimits,
): Promise<KeyWithAccount | undefined> {
  const row = await setKeyLimitsRow(services.db, hash, limits);
  if (row) await publishKeys(services, [row]);
  return row;
}

interface AccountPlan {
  plan: Plan;
  perMinute: number | null;
  perDay: number | null;
}

/** Moves the account to a plan: every working key that follows it takes it from its next request. */
export async function setAccountPlan(
  services: KeyServices,
  email: string,
  plan: AccountPlan,
): Promise<{ account: Account; keys: KeyWithAccount[] } | undefined> {
  const account = await findAccountByEmail(services.db, email);
  if (!account) return undefined;
  const keys = await setAccountPlanRow(services.db, account.id, plan, Date.now());
  await publishKeys(services, keys);
  return { account: { ...account, ...plan }, keys };
}

/**
 * Scheduled: publishes keys whose KV record or Durable Object lags behind
 * their row, those that lag most first. One key that keeps failing does not
 * hold up the others; it stays lagging for the next run.
 */
export async function publishLaggingKeys(
  services: KeyServices,
  limit = 100,
): Promise<{ published: number; failed: number }> {
  const lagging = await unsyncedKeys(services.db, limit);
  const outcomes = await Promise.allSettled(
    lagging.map((row) => publishKey(services, row, PUBLISH_ROUNDS)),
  );
  const failed = outcomes.filter((outcome) => outcome.status === "rejected").length;
  return { published: outcomes.length - failed, failed };
}
