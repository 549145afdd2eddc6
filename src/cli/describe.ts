import type { AccountSummary, KeySummary } from "../admin/admin.schemas.ts";

/** How keys and accounts read in the command's output. */

const count = (n: number) => n.toLocaleString("en-US");

/** "2026-11-22 14:05 UTC": to the minute, which is all an operator compares. */
export function minuteOf(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

export function limitsText(limits: { plan: string; perMinute: number; perDay: number }): string {
  return `${limits.plan} (${count(limits.perMinute)}/min, ${count(limits.perDay)}/day)`;
}

/** "pro (300/min, 10,000/day) of its own" or "… from its account". */
export function keyLimitsText(key: KeySummary): string {
  return `${limitsText(key)} ${key.limitsFrom === "key" ? "of its own" : "from its account"}`;
}

export function keyName(key: Pick<KeySummary, "lastFour" | "account">): string {
  return `key ending in ${key.lastFour} (${key.account})`;
}

export function statusText(key: KeySummary): string {
  if (key.status === "revoked" && key.revokedAt) return `revoked ${minuteOf(key.revokedAt)}`;
  if (key.status === "rolled" && key.expiresAt)
    return `rolled, works until ${minuteOf(key.expiresAt)}`;
  return key.status;
}

export function accountText(account: AccountSummary): string {
  const password = account.hasPassword ? "password set" : "no password yet";
  return `${account.email}: ${limitsText(account)}, ${password}, since ${minuteOf(account.createdAt)}`;
}

/** Columns padded to their widest cell, two spaces apart. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
