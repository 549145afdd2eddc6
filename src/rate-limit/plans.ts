import type { KeyRecord, Limits, Plan } from "../keys/key-record.ts";

export const planLimits: Record<Exclude<Plan, "enterprise">, Limits> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

/** Budget for requests without a valid key, per client IP. */
export const keylessLimits = { perMinute: 60 } as const;

/** Enterprise keys carry their own numbers; a record without them falls back to Free. */
export function limitsOf(record: Pick<KeyRecord, "plan" | "limits">): Limits {
  if (record.plan === "enterprise") return record.limits ?? planLimits.free;
  return planLimits[record.plan];
}
