import type { KeyRow } from "./keys.queries.ts";

/**
 * Where a key stands: working (`active`, or `rolled` and in its grace
 * period), or no longer (`expired`, at its own expiry or its grace's end;
 * `revoked`).
 */
type KeyState = "active" | "rolled" | "expired" | "revoked";

type KeyEnds = Pick<KeyRow, "expiresAt" | "graceEndsAt">;

/** When the key stops working, if it does: the earlier of its own expiry and its grace's end. */
export function workingUntil(key: KeyEnds): Date | null {
  const { expiresAt, graceEndsAt } = key;
  if (!expiresAt || !graceEndsAt) return expiresAt ?? graceEndsAt;
  return new Date(Math.min(expiresAt.getTime(), graceEndsAt.getTime()));
}

export function keyStateOf(key: KeyEnds & Pick<KeyRow, "revokedAt">, now: number): KeyState {
  if (key.revokedAt) return "revoked";
  const until = workingUntil(key);
  if (until && until.getTime() <= now) return "expired";
  return key.graceEndsAt ? "rolled" : "active";
}

/**
 * Whether a key's policy, as the cache and the rate limiter hold it, says no
 * request may use it any more: revoked, or past its expiry or its grace's end
 * (`expiresAt` there is the earlier of the two).
 */
export function hasStoppedWorking(
  policy: { revoked: boolean; expiresAt?: number | undefined },
  now: number,
): boolean {
  return policy.revoked || (policy.expiresAt !== undefined && policy.expiresAt <= now);
}
