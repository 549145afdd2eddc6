/**
 * Pure window and ban arithmetic, kept apart from storage so it reads as the
 * rules themselves: fixed UTC windows (a key's minute and day, a throttle's
 * minute or hour), and bans that start at one minute and double within 24
 * hours, up to a day.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
export const BAN_THRESHOLD = 10;
const FIRST_BAN_MS = MINUTE_MS;
const MAX_BAN_MS = DAY_MS;
/** A ban that starts within this long of the previous one's end doubles it. */
export const BAN_MEMORY_MS = DAY_MS;

export type WindowName = "minute" | "hour" | "day";

export const WINDOW_LENGTHS: Record<WindowName, number> = {
  minute: MINUTE_MS,
  hour: HOUR_MS,
  day: DAY_MS,
};

export interface WindowCount {
  start: number;
  count: number;
  refused: number;
}

export interface BanState {
  until: number;
  durationMs: number;
}

export function windowStart(now: number, length: number): number {
  return now - (now % length);
}

/** The counts for the window containing `now`; a stale window starts over. */
export function currentWindow(
  stored: WindowCount | undefined,
  now: number,
  length: number,
): WindowCount {
  const start = windowStart(now, length);
  return stored?.start === start ? stored : { start, count: 0, refused: 0 };
}

/**
 * How long the next ban lasts, given the previous one (if any). Memory runs
 * from the previous ban's end, so a key that misbehaves again as soon as a
 * 24-hour ban lifts stays at the cap instead of starting over at one minute.
 */
export function nextBanDuration(previous: BanState | undefined, now: number): number {
  if (!previous || isBanForgotten(previous, now)) return FIRST_BAN_MS;
  return Math.min(previous.durationMs * 2, MAX_BAN_MS);
}

export function isBanForgotten(ban: BanState, now: number): boolean {
  return now - ban.until >= BAN_MEMORY_MS;
}

/** The first instant at which the window no longer counts. */
export function windowEnd(count: WindowCount, length: number): number {
  return count.start + length;
}

export function secondsUntil(instant: number, now: number): number {
  return Math.max(1, Math.ceil((instant - now) / 1000));
}
