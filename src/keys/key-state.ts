import type { KeyRow } from "./keys.queries.ts";

/**
 * Where a key stands: working (`active`, or `rolled` and in its grace
 * period), or no longer (`expired` after its grace period, `revoked`).
 */
type KeyState = "active" | "rolled" | "expired" | "revoked";

export function keyStateOf(key: Pick<KeyRow, "revokedAt" | "expiresAt">, now: number): KeyState {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt) return key.expiresAt.getTime() > now ? "rolled" : "expired";
  return "active";
}
