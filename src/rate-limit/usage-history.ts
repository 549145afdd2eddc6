import { DAY_MS, HOUR_MS, windowStart } from "./windows.ts";

/** Days of hourly counts a key keeps: today (UTC) and the 29 days before it. */
export const HISTORY_DAYS = 30;

/** Requests admitted in one UTC hour. */
export interface HourCount {
  /** Unix milliseconds at which the hour starts. */
  hour: number;
  count: number;
}

/** The first instant still kept at `now`: midnight UTC, 29 days before today's. */
function historyStart(now: number): number {
  return windowStart(now, DAY_MS) - (HISTORY_DAYS - 1) * DAY_MS;
}

const TABLE = "usage_hours";

/**
 * A key's admitted requests per UTC hour for 30 days, in its Durable
 * Object's own SQLite database: one row per hour (hours since the epoch and
 * a count), at most 720 rows. The hour being counted lives in the object's
 * state record, written with the windows on every decision anyway; it joins
 * its row here when the next hour starts or the clean-up alarm runs, so a
 * decision costs no statement of its own. A share counts in its hour when
 * granted, and its unused part leaves that hour when reported.
 */
export class UsageHistory {
  readonly #sql: SqlStorage;
  /**
   * Made with the first row, so objects that never count (client IPs,
   * throttles) hold no table; looked up on first use, not when the object
   * wakes, since most wake-ups only count a request.
   */
  #tableExists: boolean | undefined;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  #hasTable(): boolean {
    this.#tableExists ??=
      this.#sql
        .exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", TABLE)
        .toArray().length > 0;
    return this.#tableExists;
  }

  /** Adds an hour's count to its row; an hour may arrive in parts (an alarm ran within it). */
  add(hour: HourCount): void {
    if (!this.#hasTable()) {
      this.#sql.exec(
        `CREATE TABLE IF NOT EXISTS ${TABLE} (hour INTEGER PRIMARY KEY, count INTEGER NOT NULL)`,
      );
      this.#tableExists = true;
    }
    this.#sql.exec(
      `INSERT INTO ${TABLE} (hour, count) VALUES (?, ?)
       ON CONFLICT (hour) DO UPDATE SET count = count + excluded.count`,
      hour.hour / HOUR_MS,
      hour.count,
    );
  }

  /** Takes back part of an hour already filed: a share's unused part, reported after its hour was. */
  remove(hour: HourCount): void {
    if (!this.#hasTable()) return;
    this.#sql.exec(
      `UPDATE ${TABLE} SET count = max(0, count - ?) WHERE hour = ?`,
      hour.count,
      hour.hour / HOUR_MS,
    );
  }

  /** The kept hours that saw requests, oldest first, with the hour still being counted. */
  hours(now: number, counting: HourCount | undefined): HourCount[] {
    const start = historyStart(now);
    const kept = this.#hasTable()
      ? this.#sql
          .exec<{ hour: number; count: number }>(
            `SELECT hour, count FROM ${TABLE} WHERE hour >= ? ORDER BY hour`,
            start / HOUR_MS,
          )
          .toArray()
          .map((row) => ({ hour: row.hour * HOUR_MS, count: row.count }))
      : [];
    if (!counting || counting.hour < start) return kept;
    const last = kept.at(-1);
    if (last?.hour === counting.hour) last.count += counting.count;
    else kept.push({ ...counting });
    return kept;
  }

  /** Drops the hours that fell out of the 30 days. */
  trim(now: number): void {
    if (this.#hasTable()) {
      this.#sql.exec(`DELETE FROM ${TABLE} WHERE hour < ?`, historyStart(now) / HOUR_MS);
    }
  }

  /** When the oldest kept day falls out of the 30 days; undefined when nothing is kept. */
  trimAt(): number | undefined {
    if (!this.#hasTable()) return undefined;
    const { oldest } = this.#sql
      .exec<{ oldest: number | null }>(`SELECT min(hour) AS oldest FROM ${TABLE}`)
      .one();
    if (oldest === null) return undefined;
    return windowStart(oldest * HOUR_MS, DAY_MS) + HISTORY_DAYS * DAY_MS;
  }
}
