import type { Limits } from "./plans.ts";
import type { WindowName } from "./windows.ts";

/** What is known about a key: its limits, whether it still works, and how fresh that knowledge is. */
export interface KeyPolicy {
  limits: Limits;
  revoked: boolean;
  /** Unix milliseconds at which a rolled key stops working. */
  expiresAt?: number;
  version: number;
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

export type HitOutcome = "allowed" | "rate_limited" | "banned" | "revoked";

export interface HitResult {
  outcome: HitOutcome;
  /** Every window in force, so headers can describe the tightest and list the policy. */
  windows: WindowReport[];
  /** Whole seconds until a refused request may be retried. */
  retryAfter?: number;
}

/** A key no request may use any more: revoked, or past its grace period. */
export function isDead(policy: Pick<KeyPolicy, "revoked" | "expiresAt">, now: number): boolean {
  return policy.revoked || (policy.expiresAt !== undefined && policy.expiresAt <= now);
}
