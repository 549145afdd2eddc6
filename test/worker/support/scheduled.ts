import { createScheduledController, env } from "cloudflare:test";
import { expect } from "vitest";
import worker from "../../../src/index.ts";
import { heldLines, type LogLine } from "./logs.ts";

/**
 * The Worker's scheduled job, run as cron runs it over `bindings`. Its one
 * line, the summary at info, is held and checked rather than printed; any
 * other line, or a task that failed, fails the test. Returns the summary.
 */
export async function runScheduled(bindings: Env = env): Promise<LogLine> {
  const lines = await heldLines(() => worker.scheduled(createScheduledController(), bindings));
  expect(lines).toEqual([
    expect.objectContaining({ level: "info", message: "scheduled tasks ran" }),
  ]);
  return lines[0] ?? {};
}
