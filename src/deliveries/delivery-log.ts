import { cutPage } from "../storage/storage-guard.ts";
import type { DeliveryStatus } from "../webhooks/delivery-status.ts";
import type { Delivery, DeliveryAttempt } from "../webhooks/webhooks.schemas.ts";

/** A delivery as its object works with it. */
export interface DeliveryRecord {
  id: number;
  eventId: string;
  /** The event's JSON as it is sent; null until the first attempt reads it from the feed. */
  payload: string | null;
  /** A test send: one attempt, never counted toward the endpoint's health. */
  test: boolean;
  /** Scheduled attempts made in this run of the schedule; indexes the next retry delay. */
  step: number;
  /** No retry follows the next attempt (a test send, a retry asked for by the owner). */
  once: boolean;
}

/** What one attempt came to. */
export interface AttemptOutcome {
  attempt: DeliveryAttempt & { attemptedAtMs: number };
  status: DeliveryStatus;
  /** When the next attempt is due, while `pending`. */
  dueAt: number | null;
}

interface DeliveryRow extends Record<string, SqlStorageValue> {
  id: number;
  event_id: string;
  payload: string | null;
  test: number;
  step: number;
  once: number;
  status: string;
  created_at: number;
  due_at: number | null;
}

interface AttemptRow extends Record<string, SqlStorageValue> {
  delivery_id: number;
  attempted_at: number;
  response_status: number | null;
  error: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL UNIQUE,
  payload TEXT,
  test INTEGER NOT NULL DEFAULT 0,
  step INTEGER NOT NULL DEFAULT 0,
  once INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  due_at INTEGER
);
CREATE INDEX IF NOT EXISTS deliveries_due_idx ON deliveries (due_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS deliveries_created_idx ON deliveries (created_at);
CREATE TABLE IF NOT EXISTS attempts (
  delivery_id INTEGER NOT NULL,
  attempted_at INTEGER NOT NULL,
  response_status INTEGER,
  error TEXT
);
CREATE INDEX IF NOT EXISTS attempts_delivery_idx ON attempts (delivery_id, attempted_at);
`;

const toRecord = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  eventId: row.event_id,
  payload: row.payload,
  test: row.test === 1,
  step: row.step,
  once: row.once === 1,
});

/**
 * One endpoint's deliveries and their attempts, in its Durable Object's
 * SQLite database. Every method is synchronous: a caller's changes are
 * in memory before it awaits anything, and the object's output gate holds
 * its replies and its fetches until they are durable.
 */
export class DeliveryLog {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#sql.exec(SCHEMA);
  }

  /** Records the event as pending, due at once; false when it is already recorded (a re-send). */
  add(eventId: string, now: number, payload: string | null = null): DeliveryRecord | undefined {
    const [row] = this.#sql
      .exec<DeliveryRow>(
        `INSERT INTO deliveries (event_id, payload, test, once, status, created_at, due_at)
         VALUES (?, ?, ?, ?, 'pending', ?, ?)
         ON CONFLICT (event_id) DO NOTHING RETURNING *`,
        eventId,
        payload,
        payload === null ? 0 : 1,
        payload === null ? 0 : 1,
        now,
        now,
      )
      .toArray();
    return row && toRecord(row);
  }

  /** Pending deliveries due by `now`, earliest first. */
  due(now: number, limit: number): DeliveryRecord[] {
    return this.#sql
      .exec<DeliveryRow>(
        `SELECT * FROM deliveries WHERE status = 'pending' AND due_at <= ?
         ORDER BY due_at, id LIMIT ?`,
        now,
        limit,
      )
      .toArray()
      .map(toRecord);
  }

  /**
   * Marks attempts as under way until `until`: another alarm leaves them
   * alone, and if the object is evicted before recording them they fall due
   * again then, so the alarm set for that moment sends them once more.
   */
  lease(ids: readonly number[], until: number): void {
    for (const id of ids)
      this.#sql.exec("UPDATE deliveries SET due_at = ? WHERE id = ?", until, id);
  }

  setPayload(id: number, payload: string): void {
    this.#sql.exec("UPDATE deliveries SET payload = ? WHERE id = ?", payload, id);
  }

  /** Deletes deliveries whose event is gone from the feed (past retention): nothing to send. */
  remove(ids: readonly number[]): void {
    for (const id of ids) {
      this.#sql.exec("DELETE FROM attempts WHERE delivery_id = ?", id);
      this.#sql.exec("DELETE FROM deliveries WHERE id = ?", id);
    }
  }

  /** Settles deliveries that fell due while the endpoint was disabled. */
  skip(ids: readonly number[]): void {
    for (const id of ids) {
      this.#sql.exec("UPDATE deliveries SET status = 'skipped', due_at = NULL WHERE id = ?", id);
    }
  }

  record(delivery: DeliveryRecord, outcome: AttemptOutcome): void {
    const { attempt } = outcome;
    this.#sql.exec(
      "INSERT INTO attempts (delivery_id, attempted_at, response_status, error) VALUES (?, ?, ?, ?)",
      delivery.id,
      attempt.attemptedAtMs,
      attempt.responseStatus,
      attempt.error,
    );
    this.#sql.exec(
      "UPDATE deliveries SET status = ?, due_at = ?, step = step + 1 WHERE id = ?",
      outcome.status,
      outcome.dueAt,
      delivery.id,
    );
  }

  /**
   * Makes a delivery pending again, due now: one attempt when `once`,
   * otherwise with the schedule from its start. Undefined when unknown.
   */
  requeue(id: number, now: number, once: boolean): DeliveryRecord | undefined {
    const [row] = this.#sql
      .exec<DeliveryRow>(
        `UPDATE deliveries SET status = 'pending', due_at = ?, step = 0, once = ?
         WHERE id = ? RETURNING *`,
        now,
        once ? 1 : 0,
        id,
      )
      .toArray();
    return row && toRecord(row);
  }

  /**
   * Puts the deliveries made since `since` that failed or were skipped
   * (test sends aside) back on the schedule from its start, due now: the
   * alarm sends them oldest first, as it sends by due time, then by id.
   * How many.
   */
  recoverSince(since: number, now: number): number {
    return this.#sql
      .exec(
        `UPDATE deliveries SET status = 'pending', due_at = ?, step = 0, once = 0
         WHERE created_at >= ? AND status IN ('failed', 'skipped') AND test = 0 RETURNING id`,
        now,
        since,
      )
      .toArray().length;
  }

  /** When the next pending delivery is due, if any. */
  nextDue(): number | undefined {
    return this.#earliest("due_at", "status = 'pending'");
  }

  /** When the oldest settled delivery was made, for the retention clean-up. */
  oldestSettled(): number | undefined {
    return this.#earliest("created_at", "status != 'pending'");
  }

  /** The earliest time in `column` of the deliveries `where` selects, if any. */
  #earliest(column: "due_at" | "created_at", where: string): number | undefined {
    const [row] = this.#sql
      .exec<{ at: number | null }>(`SELECT min(${column}) AS at FROM deliveries WHERE ${where}`)
      .toArray();
    return row?.at ?? undefined;
  }

  /** Removes settled deliveries made before `before`, with their attempts. */
  removeSettledBefore(before: number): void {
    this.#sql.exec(
      `DELETE FROM attempts WHERE delivery_id IN
         (SELECT id FROM deliveries WHERE status != 'pending' AND created_at < ?)`,
      before,
    );
    this.#sql.exec("DELETE FROM deliveries WHERE status != 'pending' AND created_at < ?", before);
  }

  /** A page of deliveries, newest first, below `beforeId`; one more than `limit` tells if more follow. */
  page(beforeId: number | undefined, limit: number): { deliveries: Delivery[]; hasMore: boolean } {
    const rows = this.#sql
      .exec<DeliveryRow>(
        "SELECT * FROM deliveries WHERE id < ? ORDER BY id DESC LIMIT ?",
        beforeId ?? Number.MAX_SAFE_INTEGER,
        limit + 1,
      )
      .toArray();
    const { listed, hasMore } = cutPage(rows, limit);
    return { deliveries: this.#withAttempts(listed), hasMore };
  }

  /** One delivery as listDeliveries shows it. */
  find(id: number): Delivery | undefined {
    const rows = this.#sql.exec<DeliveryRow>("SELECT * FROM deliveries WHERE id = ?", id).toArray();
    return this.#withAttempts(rows)[0];
  }

  #withAttempts(rows: DeliveryRow[]): Delivery[] {
    const first = rows.at(-1)?.id;
    const last = rows[0]?.id;
    if (first === undefined || last === undefined) return [];
    const attempts = new Map<number, DeliveryAttempt[]>();
    const lo = Math.min(first, last);
    const hi = Math.max(first, last);
    for (const row of this.#sql.exec<AttemptRow>(
      `SELECT * FROM attempts WHERE delivery_id BETWEEN ? AND ?
       ORDER BY delivery_id, attempted_at, rowid`,
      lo,
      hi,
    )) {
      const list = attempts.get(row.delivery_id) ?? [];
      list.push({
        attemptedAt: new Date(row.attempted_at).toISOString(),
        responseStatus: row.response_status,
        error: row.error,
      });
      attempts.set(row.delivery_id, list);
    }
    return rows.map((row) => ({
      id: row.id,
      eventId: row.event_id,
      status: row.status as DeliveryStatus,
      createdAt: new Date(row.created_at).toISOString(),
      nextAttemptAt:
        row.status === "pending" && row.due_at !== null ? new Date(row.due_at).toISOString() : null,
      attempts: attempts.get(row.id) ?? [],
    }));
  }
}
