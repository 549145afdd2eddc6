import type { Grant, KeyPolicy, ShareReport } from "./rate-limit-types.ts";
import { shareSize } from "./share-size.ts";
import { type ActiveWindow, reports, WINDOW_NAMES, type WindowState } from "./window-counts.ts";
import { HOUR_MS, type WindowName, windowEnd, windowStart } from "./windows.ts";

/*
 * The shares of a key's budget its Durable Object has granted to isolates,
 * and the reports that settle them: a share is counted in the windows (and
 * its hour of usage) when granted, and its unused part given back when the
 * isolate reports it. A share never reported stays counted, as used.
 */

/** What a report needs to give a share's unused part back to where it was counted. */
interface OutstandingGrant {
  size: number;
  /** The start of each window it was counted in. */
  starts: Partial<Record<WindowName, number>>;
  /** The hour of usage history it was counted in. */
  hour: number;
  /** When its life ends. */
  until: number;
}

/** Shares granted and not yet reported, by grant id. */
export type Grants = Record<string, OutstandingGrant>;

/**
 * Grants kept for their report, oldest dropped first: a live isolate holds
 * one at a time, so more are shares of isolates that went away, which count
 * as used.
 */
const MAX_GRANTS = 32;

/**
 * A share for the calling isolate, sized by `shareSize` from the key's recent
 * rate and what its windows have left, counted in the windows at once and
 * kept in `grants` for its report (with at most MAX_GRANTS others, the
 * newest). The caller counts `size` in the usage hour. Undefined when the key's rate or budget calls for none.
 */
export function grantShare(
  grants: Grants,
  windows: ActiveWindow[],
  policy: KeyPolicy,
  perSecond: number,
  now: number,
): Grant | undefined {
  const outstanding = Object.values(grants).filter((grant) => grant.until > now);
  const share = shareSize({
    perSecond,
    windows: windows.map((window) => ({
      remaining: window.limit - window.count.count,
      endsAt: windowEnd(window.count, window.length),
    })),
    outstanding: outstanding.reduce((sum, grant) => sum + grant.size, 0),
    expiresAt: policy.expiresAt,
    now,
  });
  if (!share) return undefined;
  for (const window of windows) window.count.count += share.size;
  const id = crypto.randomUUID();
  grants[id] = {
    size: share.size,
    starts: Object.fromEntries(windows.map((window) => [window.name, window.count.start])),
    hour: windowStart(now, HOUR_MS),
    until: now + share.lifeMs,
  };
  // Objects keep their keys' insertion order: the first are the oldest.
  for (const old of Object.keys(grants).slice(0, -MAX_GRANTS)) delete grants[old];
  return {
    id,
    size: share.size,
    lifeMs: share.lifeMs,
    policyVersion: policy.version,
    windows: reports(windows),
  };
}

/** A settled share: what the isolate admitted from it, and what went back to which hour. */
interface SettledShare {
  used: number;
  unused: number;
  hour: number;
}

/**
 * Settles a reported share: forgets its grant and gives its unused part back
 * to the windows it was counted in, where they are still running. Each grant
 * is settled once (an isolate repeats a report until a call carrying it
 * returns); undefined for one already settled or forgotten.
 */
export function settleShare(
  grants: Grants,
  windows: WindowState,
  report: ShareReport,
): SettledShare | undefined {
  const grant = grants[report.grant];
  if (!grant) return undefined;
  delete grants[report.grant];
  const used = Math.min(Math.max(report.used, 0), grant.size);
  const unused = grant.size - used;
  if (unused > 0) {
    for (const name of WINDOW_NAMES) {
      const count = windows[name];
      if (count && count.start === grant.starts[name]) count.count -= unused;
    }
  }
  return { used, unused, hour: grant.hour };
}

/**
 * The grants worth keeping: those counted in a window still kept, since a
 * report of any other has nothing left to give back. Undefined when none is.
 */
export function keptGrants(grants: Grants, windows: WindowState): Grants | undefined {
  const kept = Object.entries(grants).filter(([, grant]) =>
    WINDOW_NAMES.some((name) => windows[name] && windows[name].start === grant.starts[name]),
  );
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}
