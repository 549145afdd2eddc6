import { env } from "cloudflare:test";

/**
 * The real database, recording the SQL text of every batch the app sends, in
 * order: a batch's statements are the last ones prepared before it (queries
 * prepared once for later reads come earlier and are left out).
 */
export function recordingD1(batches: string[][]): D1Database {
  const prepared: string[] = [];
  return {
    prepare: (query: string) => {
      prepared.push(query);
      return env.DB.prepare(query);
    },
    batch: (statements: D1PreparedStatement[]) => {
      batches.push(prepared.splice(0).slice(-statements.length));
      return env.DB.batch(statements);
    },
    exec: (query: string) => env.DB.exec(query),
  } as unknown as D1Database;
}
