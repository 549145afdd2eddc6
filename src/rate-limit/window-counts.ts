import type { Limits } from "./plans.ts";
import type { HitResult, WindowReport } from "./rate-limit-types.ts";
import {
  BAN_MEMORY_MS,
  BAN_THRESHOLD,
  type BanState,
  currentWindow,
  isBanForgotten,
  nextBanDuration,
  secondsUntil,
  WINDOW_LENGTHS,
  type WindowCount,
  type WindowName,
  windowEnd,
} from "./windows.ts";

/*
 * One limiter's windows and ban, as its Durable Object keeps them: counting a
 * request in every window or refusing it, the ban on the tenth refusal in a
 * window, and what goes stale when. The rules themselves (window bounds, ban
 * lengths) are windows.ts; shares of the budget are share-grants.ts.
 */

/** The windows a limiter counts in and its ban, as stored. */
export type WindowState = Partial<Record<WindowName, WindowCount>> & { ban?: BanState };

/** A window in force for one decision; `count` is the stored record itself, changed in place. */
export interface ActiveWindow {
  name: WindowName;
  length: number;
  limit: number;
  count: WindowCount;
}

export const WINDOW_NAMES = Object.keys(WINDOW_LENGTHS) as WindowName[];

/** The window of this name that contains `now`, started afresh when the stored one has ended. */
export function activeWindow(
  state: WindowState,
  name: WindowName,
  limit: number,
  now: number,
): ActiveWindow {
  const length = WINDOW_LENGTHS[name];
  const count = currentWindow(state[name], now, length);
  state[name] = count;
  return { name, length, limit, count };
}

/** A key's minute and day windows; the minute alone for a keyless budget. */
export function activeWindows(
  state: WindowState,
  limits: Pick<Limits, "perMinute"> & Partial<Limits>,
  now: number,
): ActiveWindow[] {
  const windows = [activeWindow(state, "minute", limits.perMinute, now)];
  if (limits.perDay !== undefined) windows.push(activeWindow(state, "day", limits.perDay, now));
  return windows;
}

/** What one request came to, and whether the state changed (a ban in force changes nothing). */
interface Counted {
  result: HitResult;
  changed: boolean;
}

/**
 * Counts one request in every window, or refuses it: while a ban lasts, or
 * when any window is full. Where `canBan` (a key's requests), the tenth
 * refusal in a window bans, for a minute at first and doubling within a day
 * of the last ban, and the refusal counts start over.
 */
export function countOrRefuse(
  state: WindowState,
  windows: ActiveWindow[],
  now: number,
  canBan: boolean,
): Counted {
  const ban = state.ban;
  if (ban && ban.until > now) {
    const result = {
      windows: reports(windows),
      retryAfter: secondsUntil(ban.until, now),
      banSeconds: ban.durationMs / 1000,
    };
    return { result: { outcome: "banned", ...result }, changed: false };
  }
  const full = windows.filter((window) => window.count.count >= window.limit);
  if (full.length === 0) {
    for (const window of windows) window.count.count += 1;
    return { result: { outcome: "allowed", windows: reports(windows) }, changed: true };
  }
  for (const window of full) window.count.refused += 1;
  if (canBan && full.some((window) => window.count.refused >= BAN_THRESHOLD)) {
    const durationMs = nextBanDuration(state.ban, now);
    state.ban = { until: now + durationMs, durationMs };
    for (const window of windows) window.count.refused = 0;
    const retryAfter = secondsUntil(now + durationMs, now);
    const result = { windows: reports(windows), retryAfter, banSeconds: durationMs / 1000 };
    return { result: { outcome: "banned", ...result }, changed: true };
  }
  const reopensAt = Math.max(...full.map((window) => windowEnd(window.count, window.length)));
  const retryAfter = secondsUntil(reopensAt, now);
  return {
    result: { outcome: "rate_limited", windows: reports(windows), retryAfter },
    changed: true,
  };
}

/** Whether any window refused a request: the key is being refused, so it gets no share. */
export function refusing(windows: ActiveWindow[]): boolean {
  return windows.some((window) => window.count.refused > 0);
}

/** The windows as an answer reports them. */
export function reports(windows: ActiveWindow[]): WindowReport[] {
  return windows.map((window) => ({
    name: window.name,
    limit: window.limit,
    remaining: Math.max(0, window.limit - window.count.count),
    reset: Math.ceil(windowEnd(window.count, window.length) / 1000),
    lengthSeconds: window.length / 1000,
  }));
}

/** When every window and the ban's memory will have passed; undefined when none is kept. */
export function staleAt(state: WindowState): number | undefined {
  const instants = WINDOW_NAMES.map((name) => {
    const count = state[name];
    return count && windowEnd(count, WINDOW_LENGTHS[name]);
  });
  instants.push(state.ban && state.ban.until + BAN_MEMORY_MS);
  const known = instants.filter((instant) => instant !== undefined);
  return known.length > 0 ? Math.max(...known) : undefined;
}

/** The windows still running and a ban recent enough to double the next one. */
export function freshWindows(state: WindowState, now: number): WindowState {
  const kept: WindowState = {};
  for (const name of WINDOW_NAMES) {
    const count = state[name];
    if (count && now < windowEnd(count, WINDOW_LENGTHS[name])) kept[name] = count;
  }
  if (state.ban && !isBanForgotten(state.ban, now)) kept.ban = state.ban;
  return kept;
}
