import { afterEach, beforeEach, expect, vi } from "vitest";

/** One line the Worker logged, parsed from its JSON (or kept as text if it was not JSON). */
export type LogLine = Record<string, unknown>;

function parse(text: unknown): LogLine {
  try {
    return JSON.parse(String(text)) as LogLine;
  } catch {
    return { text: String(text) };
  }
}

/**
 * For the tests of a file that break a store on purpose: the Worker's log
 * lines are collected for the test to check (the failure is logged, and
 * nothing else is) instead of reaching the test output as errors.
 */
export function captureLogs(): { lines: LogLine[] } {
  const captured = { lines: [] as LogLine[] };
  beforeEach(() => {
    captured.lines.length = 0;
    for (const method of ["log", "error"] as const) {
      vi.spyOn(console, method).mockImplementation((text) => {
        captured.lines.push(parse(text));
      });
    }
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  return captured;
}

/** A logged storage failure of this store, as the guard writes it. */
export function storageFailure(store: string): LogLine {
  return expect.objectContaining({ level: "error", message: "storage call failed", store });
}

/** The line the response chain logs for a reply with this status (only 5xx at LOG_LEVEL=warn). */
export function requestLine(status: number): LogLine {
  return expect.objectContaining({ level: "error", message: "request", status });
}

/**
 * The lines of `count` requests that each met a failing `store`, and
 * nothing else: the guard's line, then the request's 503.
 */
export function storageFaultLines(store: string, count: number): LogLine[] {
  return Array.from({ length: count }, () => [storageFailure(store), requestLine(503)]).flat();
}

/** The lines of a request that met a defect: what `onError` logs of it, then the request's 500. */
export function defectLines(error: RegExp): LogLine[] {
  return [
    expect.objectContaining({
      level: "error",
      message: "unhandled error",
      error: expect.stringMatching(error),
    }),
    requestLine(500),
  ];
}

/**
 * Runs `work` with the Worker's log lines held rather than printed, and
 * returns them for the test to check. Whatever held the console before (a
 * file's `captureLogs`) holds it again afterwards.
 */
export async function heldLines(work: () => Promise<unknown>): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  const before = { log: console.log, error: console.error };
  const hold = (text: unknown) => {
    lines.push(parse(text));
  };
  console.log = hold;
  console.error = hold;
  try {
    await work();
  } finally {
    console.log = before.log;
    console.error = before.error;
  }
  return lines;
}
