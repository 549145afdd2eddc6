import { keyStateOf } from "../../keys/key-state.ts";
import type { KeyRow } from "../../keys/keys.queries.ts";
import { formatUtc } from "./format.ts";

/** What a person can still do with a key: roll and revoke an active one, only revoke a rolled one. */
export function keyActions(key: KeyRow, now: Date): { roll: boolean; revoke: boolean } {
  const state = keyStateOf(key, now.getTime());
  return { roll: state === "active", revoke: state === "active" || state === "rolled" };
}

export function keyStatus(key: KeyRow, now: Date): string {
  switch (keyStateOf(key, now.getTime())) {
    case "revoked":
      return `Revoked ${formatUtc(key.revokedAt ?? now)}`;
    case "rolled":
      return `Rolled: works until ${formatUtc(key.expiresAt ?? now)}, then refused`;
    case "expired":
      return `Expired ${formatUtc(key.expiresAt ?? now)}`;
    case "active":
      return "Active";
  }
}
