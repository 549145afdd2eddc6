import { effectiveLimits } from "../keys/key-projection.ts";
import { workingUntil } from "../keys/key-state.ts";
import type { KeyWithAccount } from "../keys/keys.queries.ts";
import type { RateLimitClient } from "../rate-limit/rate-limit-client.ts";
import type { WindowReport } from "../rate-limit/rate-limit-types.ts";
import { HISTORY_DAYS, type HourCount } from "../rate-limit/usage-history.ts";
import { DAY_MS } from "../rate-limit/windows.ts";
import { type UsageSeries, usageSeries } from "./usage-series.ts";

interface WindowUsage {
  used: number;
  limit: number;
}

export interface KeyUsage {
  minute: WindowUsage;
  day: WindowUsage;
  history: UsageSeries;
  /** The start of the minute the key was last used (Unix ms); undefined for a key never used. */
  lastUse: number | undefined;
}

export interface AccountUsage {
  /** Requests counted this UTC minute and this UTC day, over all the account's keys. */
  minute: number;
  day: number;
  /** The charts' numbers over all the account's keys. */
  history: UsageSeries;
  byKey: Map<string, KeyUsage>;
}

/** A key that ended before the 30 days the charts show has nothing left to show. */
function mayHaveHistory(key: KeyWithAccount, now: number): boolean {
  const ended = key.revokedAt ?? workingUntil(key);
  return ended === null || ended.getTime() > now - HISTORY_DAYS * DAY_MS;
}

function windowUsage(windows: WindowReport[], name: WindowReport["name"]): WindowUsage {
  const window = windows.find((candidate) => candidate.name === name);
  return window
    ? { used: window.limit - window.remaining, limit: window.limit }
    : { used: 0, limit: 0 };
}

/**
 * Asks each key's Durable Object, in one call per key, for its current
 * windows (counting nothing), its hourly history and its last use, and adds
 * them up for the account. Keys that ended before the 30 days the charts
 * show are not asked.
 */
export async function accountUsage(
  limiter: RateLimitClient,
  keys: KeyWithAccount[],
): Promise<AccountUsage> {
  const now = Date.now();
  const counted = keys.filter((key) => mayHaveHistory(key, now));
  const answers = await Promise.all(
    counted.map(async (key) => ({
      hash: key.hash,
      ...(await limiter.keyReport(key.hash, effectiveLimits(key))),
    })),
  );
  const byKey = new Map<string, KeyUsage>();
  const allHours: HourCount[] = [];
  let minute = 0;
  let day = 0;
  for (const { hash, windows, hours, lastUse } of answers) {
    const usage: KeyUsage = {
      minute: windowUsage(windows, "minute"),
      day: windowUsage(windows, "day"),
      history: usageSeries(hours, now),
      lastUse,
    };
    byKey.set(hash, usage);
    allHours.push(...hours);
    minute += usage.minute.used;
    day += usage.day.used;
  }
  return { minute, day, history: usageSeries(allHours, now), byKey };
}
