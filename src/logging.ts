/**
 * The Worker's log lines: one JSON object per line, which Workers Logs and
 * `wrangler tail` index by field. Nothing here may carry client data beyond
 * what the caller puts in the fields.
 */

type Level = "info" | "warn" | "error";

export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, message, ...fields });
  if (level === "error") console.error(line);
  else console.log(line);
}

/**
 * What went wrong, without the query text and parameters an ORM wraps around
 * a store's error: those hold client data, which does not belong in logs.
 */
export function describeError(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
}
