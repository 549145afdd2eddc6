import { effectiveLimits } from "../keys/key-projection.ts";
import type { KeyWithAccount } from "../keys/keys.queries.ts";
import type { RateLimitClient } from "../rate-limit/rate-limit-client.ts";
import type { WindowReport } from "../rate-limit/rate-limit-types.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface WindowUsage {
  used: number;
  limit: number;
}

export interface KeyUsage {
  minute: WindowUsage;
  day: WindowUsage;
}

export interface AccountUsage {
  /** Requests counted this UTC minute and this UTC day, over all the account's keys. */
  minute: number;
  day: number;
  byKey: Map<string, KeyUsage>;
}

/** A key that ended more than a day ago cannot have counted anything today. */
function mayHaveCountedToday(key: KeyWithAccount, now: number): boolean {
  const ended = key.revokedAt ?? key.expiresAt;
  return ended === null || ended.getTime() > now - DAY_MS;
}

function windowUsage(windows: WindowReport[], name: WindowReport["name"]): WindowUsage {
  const window = windows.find((candidate) => candidate.name === name);
  return window
    ? { used: window.limit - window.remaining, limit: window.limit }
    : { used: 0, limit: 0 };
}

/** Asks each key's Durable Object for its current windows (counting nothing) and adds them up. */
export async function accountUsage(
  limiter: RateLimitClient,
  keys: KeyWithAccount[],
): Promise<AccountUsage> {
  const now = Date.now();
  const counted = keys.filter((key) => mayHaveCountedToday(key, now));
  const entries = await Promise.all(
    counted.map(async (key): Promise<[string, KeyUsage]> => {
      const windows = await limiter.usage(key.hash, effectiveLimits(key));
      return [
        key.hash,
        { minute: windowUsage(windows, "minute"), day: windowUsage(windows, "day") },
      ];
    }),
  );
  const byKey = new Map(entries);
  let minute = 0;
  let day = 0;
  for (const usage of byKey.values()) {
    minute += usage.minute.used;
    day += usage.day.used;
  }
  return { minute, day, byKey };
}
