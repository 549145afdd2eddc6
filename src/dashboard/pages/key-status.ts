import type { KeyRow } from "../../keys/keys.queries.ts";
import { formatUtc } from "./format.ts";

/** Active keys can be rolled and revoked; rolling ones (in their grace period) only revoked; ended ones neither. */
type KeyState = "active" | "rolling" | "ended";

export function keyState(key: KeyRow, now: Date): KeyState {
  if (key.revokedAt) return "ended";
  if (key.expiresAt) return key.expiresAt > now ? "rolling" : "ended";
  return "active";
}

export function keyStatus(key: KeyRow, now: Date): string {
  if (key.revokedAt) return `Revoked ${formatUtc(key.revokedAt)}`;
  if (key.expiresAt && key.expiresAt > now) {
    return `Rolled: works until ${formatUtc(key.expiresAt)}, then refused`;
  }
  if (key.expiresAt) return `Expired ${formatUtc(key.expiresAt)}`;
  return "Active";
}
