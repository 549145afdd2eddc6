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
 * Asks each key's Durable Object for its current windows (counting nothing)
 * and its hourly history, both at once, and adds them up for the account.
 */
export async function accountUsage(
  limiter: RateLimitClient,
  keys: KeyWithAccount[],
): Promise<AccountUsage> {
  const now = Date.now();
  const counted = keys.filter((key) => mayHaveHistory(key, now));
  const answers = await Promise.all(
    counted.map(async (key) => {
      const [windows, hours] = await Promise.all([
        limiter.usage(key.hash, effectiveLimits(key)),
        limiter.usageHistory(key.hash),
      ]);
      return { hash: key.hash, windows, hours };
    }),
  );
  const byKey = new Map<string, KeyUsage>();
  const allHours: HourCount[] = [];
  let minute = 0;
  let day = 0;
  for (const { hash, windows, hours } of answers) {
    const usage: KeyUsage = {
      minute: windowUsage(windows, "minute"),
      day: windowUsage(windows, "day"),
      history: usageSeries(hours, now),
    };
    byKey.set(hash, usage);
    allHours.push(...hours);
    minute += usage.minute.used;
    day += usage.day.used;
  }
  return { minute, day, history: usageSeries(allHours, now), byKey };
}
