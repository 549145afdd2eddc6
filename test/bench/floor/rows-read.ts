import type { Database } from "../../../src/db/database.ts";

/**
 * A database that sums the rows D1 reads (`meta.rows_read`, what D1 bills)
 * over every statement it runs, however it runs: `all`, `raw`, `first`,
 * `run`, or in a `batch`, bound or not.
 */

/** What a counting database has read so far. */
export interface RowsRead {
  rowsRead: number;
}

/** The database as given, but counting into `counted` the rows D1 reads for each statement it runs. */
export function countingRows(db: Database): { db: Database; counted: RowsRead } {
  const counted: RowsRead = { rowsRead: 0 };
  const tally = <R extends D1Result>(result: R): R => {
    counted.rowsRead += result.meta.rows_read ?? 0;
    return result;
  };
  const d1 = db.d1;
  const counting = (statement: D1PreparedStatement): D1PreparedStatement => {
    const all = statement.all.bind(statement);
    const raw = statement.raw.bind(statement) as (options?: {
      columnNames?: boolean;
    }) => Promise<unknown[]>;
    const bind = statement.bind.bind(statement);
    // The statement itself changed, never a copy: a batch takes only D1's own statements.
    return Object.assign(statement, {
      bind: (...values: unknown[]) => counting(bind(...values)),
      all: async <T>() => tally(await all<T>()),
      run: async <T>() => tally(await all<T>()),
      first: async (column?: string) => {
        const [row] = (await statement.all<Record<string, unknown>>()).results;
        return row === undefined ? null : column === undefined ? row : (row[column] ?? null);
      },
      // D1 answers a raw read without its rows read, and an object per row loses repeated
      // column names: the rows come from the raw read, their count from the same statement read whole.
      raw: async (options?: { columnNames?: boolean }) => {
        await statement.all();
        return raw(options);
      },
    });
  };
  const prepare = (query: string) => counting(d1.prepare(query));
  const batch = async <T>(statements: D1PreparedStatement[]) =>
    (await d1.batch<T>(statements)).map(tally);
  const target = Object.assign(Object.create(d1) as D1Database, { prepare, batch });
  return { db: { ...db, d1: target }, counted };
}
