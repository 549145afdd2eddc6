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
 * a count), at most 720 rows. An admitted request adds one to its hour's
 * row, a few bytes, never the whole history. Like the windows, the write is
 * not awaited: the output gate holds the reply until it is durable.
 */
export class UsageHistory {
  readonly #sql: SqlStorage;
  /** Made with the first count, so objects that never count (client IPs, throttles) hold no table. */
  #tableExists: boolean;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#tableExists =
      sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", TABLE).toArray()
        .length > 0;
  }

  /** Counts one admitted request in the hour that contains `now`. */
  count(now: number): void {
    if (!this.#tableExists) {
      this.#sql.exec(
        `CREATE TABLE IF NOT EXISTS ${TABLE} (hour INTEGER PRIMARY KEY, count INTEGER NOT NULL)`,
      );
      this.#tableExists = true;
    }
    this.#sql.exec(
      `INSERT INTO ${TABLE} (hour, count) VALUES (?, 1)
       ON CONFLICT (hour) DO UPDATE SET count = count + 1`,
      Math.floor(now / HOUR_MS),
    );
  }

  /** The kept hours that saw requests, oldest first. */
  hours(now: number): HourCount[] {
    if (!this.#tableExists) return [];
    return this.#sql
      .exec<{ hour: number; count: number }>(
        `SELECT hour, count FROM ${TABLE} WHERE hour >= ? ORDER BY hour`,
        historyStart(now) / HOUR_MS,
      )
      .toArray()
      .map((row) => ({ hour: row.hour * HOUR_MS, count: row.count }));
  }

  /** Drops the hours that fell out of the 30 days. */
  trim(now: number): void {
    if (this.#tableExists) {
      this.#sql.exec(`DELETE FROM ${TABLE} WHERE hour < ?`, historyStart(now) / HOUR_MS);
    }
  }

  /** When the oldest kept day falls out of the 30 days; undefined when nothing is kept. */
  trimAt(): number | undefined {
    if (!this.#tableExists) return undefined;
    const { oldest } = this.#sql
      .exec<{ oldest: number | null }>(`SELECT min(hour) AS oldest FROM ${TABLE}`)
      .one();
    if (oldest === null) return undefined;
    return windowStart(oldest * HOUR_MS, DAY_MS) + HISTORY_DAYS * DAY_MS;
  }
}
