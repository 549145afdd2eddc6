import { env } from "cloudflare:test";

/** The real database, recording the SQL text of every batch the app sends, in order. */
export function recordingD1(batches: string[][]): D1Database {
  const prepared: string[] = [];
  return {
    prepare: (query: string) => {
      prepared.push(query);
      return env.DB.prepare(query);
    },
    batch: (statements: D1PreparedStatement[]) => {
      batches.push(prepared.splice(0));
      return env.DB.batch(statements);
    },
    exec: (query: string) => env.DB.exec(query),
  } as unknown as D1Database;
}
