import { HISTORY_DAYS, type HourCount } from "../rate-limit/usage-history.ts";
import { DAY_MS, HOUR_MS, windowStart } from "../rate-limit/windows.ts";

/** The hours the short chart shows: the current UTC hour and the 23 before it. */
const HOURS_SHOWN = 24;

export interface UsagePoint {
  /** Unix milliseconds at which the hour or day starts. */
  start: number;
  count: number;
}

/** What the charts draw: requests per hour over the last 24 hours, per UTC day over the last 30. */
export interface UsageSeries {
  hourly: UsagePoint[];
  daily: UsagePoint[];
}

function emptyPoints(first: number, length: number, count: number): UsagePoint[] {
  return Array.from({ length: count }, (_, index) => ({ start: first + index * length, count: 0 }));
}

/** Adds the count to the point whose span holds `instant`, if the series reaches back that far. */
function addTo(points: UsagePoint[], length: number, instant: number, count: number): void {
  const first = points[0]?.start ?? 0;
  const point = points[Math.floor((instant - first) / length)];
  if (instant >= first && point) point.count += count;
}

/** Hourly counts (of one key, or of many keys together) bucketed for the two charts, as of `now`. */
export function usageSeries(hours: HourCount[], now: number): UsageSeries {
  const hourly = emptyPoints(
    windowStart(now, HOUR_MS) - (HOURS_SHOWN - 1) * HOUR_MS,
    HOUR_MS,
    HOURS_SHOWN,
  );
  const daily = emptyPoints(
    windowStart(now, DAY_MS) - (HISTORY_DAYS - 1) * DAY_MS,
    DAY_MS,
    HISTORY_DAYS,
  );
  for (const { hour, count } of hours) {
    addTo(hourly, HOUR_MS, hour, count);
    addTo(daily, DAY_MS, hour, count);
  }
  return { hourly, daily };
}
