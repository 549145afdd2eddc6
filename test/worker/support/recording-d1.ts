import { env } from "cloudflare:test";
import { withSessions } from "./faulty-bindings.ts";

/**
 * The real database, recording the SQL text of every batch the app sends, in
 * order: a batch's statements are the last ones prepared before it (queries
 * prepared once for later reads come earlier and are left out).
 */
export function recordingD1(batches: string[][]): D1Database {
  const prepared: string[] = [];
  return withSessions({
    prepare: (query: string) => {
      prepared.push(query);
      return env.DB.prepare(query);
    },
    batch: <T>(statements: D1PreparedStatement[]) => {
      batches.push(prepared.splice(0).slice(-statements.length));
      return env.DB.batch<T>(statements);
    },
    exec: (query: string) => env.DB.exec(query),
  });
}

/**
 * The real database, recording where each D1 session the app opens starts:
 * `first-primary`, `first-unconstrained`, or the bookmark its reads must be
 * at least as fresh as.
 */
export function sessionRecordingD1(starts: string[]): D1Database {
  return {
    prepare: (query: string) => env.DB.prepare(query),
    batch: <T>(statements: D1PreparedStatement[]) => env.DB.batch<T>(statements),
    exec: (query: string) => env.DB.exec(query),
    withSession: (start: string) => {
      starts.push(start);
      return env.DB.withSession(start);
    },
  } as unknown as D1Database;
}
