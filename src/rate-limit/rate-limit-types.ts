import type { Scope } from "../scopes.ts";
import type { Limits } from "./plans.ts";
import type { HourCount } from "./usage-history.ts";
import type { WindowName } from "./windows.ts";

/**
 * What is known about a key: its limits, whether it still works, what it may
 * do and from where (fixed when it was made), and how fresh that knowledge is.
 */
export interface KeyPolicy {
  limits: Limits;
  revoked: boolean;
  /** Unix milliseconds at which the key stops working: its expiry, or its roll's grace end. */
  expiresAt?: number;
  scopes: Scope[];
  allowedRanges?: string[];
  version: number;
}

/** What the dashboard shows of a key, from one call to its object. */
export interface KeyReport {
  windows: WindowReport[];
  /** Admitted requests per UTC hour over the last 30 days, oldest first. */
  hours: HourCount[];
  /** The start of the minute the key was last used (Unix ms); absent for a key never used. */
  lastUse?: number;
}

/** A throttle's allowance: `limit` attempts per UTC minute or per UTC hour. */
export interface Budget {
  limit: number;
  per: Extract<WindowName, "minute" | "hour">;
}

export interface WindowReport {
  name: WindowName;
  limit: number;
  remaining: number;
  /** Unix seconds at which the window ends. */
  reset: number;
  lengthSeconds: number;
}

type HitOutcome = "allowed" | "rate_limited" | "banned" | "revoked";

export interface HitResult {
  outcome: HitOutcome;
  /** Every window in force, so headers can describe the tightest and list the policy. */
  windows: WindowReport[];
  /** Whole seconds until a refused request may be retried. */
  retryAfter?: number;
  /** While the key is banned: how long the ban lasts in all, in whole seconds. */
  banSeconds?: number;
}

/** How many admissions an isolate made from a share it is done with. */
export interface ShareReport {
  grant: string;
  used: number;
}

/** One request of a key, as an isolate's limiter client sends it to the key's Durable Object. */
export interface KeyCall {
  /** The newest policy the request knows of. */
  policy: KeyPolicy;
  /** Shares the isolate is done with, so their unused part comes back first. */
  reports: ShareReport[];
  /** Whether a share may come back: no other call of the key is in flight from the isolate. */
  share: boolean;
}

/**
 * Part of a key's budget granted to one isolate, spent from the object's
 * point of view already, for it to admit requests with until it ends.
 */
export interface Grant {
  id: string;
  size: number;
  /** How long the share may be spent, counted from when the call was sent. */
  lifeMs: number;
  /** The policy it was granted under; a request bringing a newer one asks the object. */
  policyVersion: number;
  /** The windows with the whole share counted as spent. */
  windows: WindowReport[];
}

export interface KeyDecision {
  result: HitResult;
  /** Given only while the key is neither refused nor banned and its rate calls for one. */
  grant?: Grant;
}
