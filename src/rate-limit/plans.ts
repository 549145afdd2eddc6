import { z } from "zod";

export const PlanSchema = z.enum(["free", "pro", "business", "enterprise"]);
export type Plan = z.infer<typeof PlanSchema>;

export const LimitsSchema = z.object({
  perMinute: z.number().int().positive(),
  perDay: z.number().int().positive(),
});
export type Limits = z.infer<typeof LimitsSchema>;

export const planLimits: Record<Exclude<Plan, "enterprise">, Limits> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};

/** Budget for requests without a valid key, per client IP. */
export const keylessLimits = { perMinute: 60 } as const;

/** Numbers stored beside a plan; only Enterprise has its own. */
interface PlanNumbers {
  perMinute: number | null;
  perDay: number | null;
}

/**
 * The limits a plan grants. Enterprise carries its own numbers; every write
 * path requires them, so an Enterprise row without them falls back to Free
 * rather than to no limit at all.
 */
export function limitsOf(plan: Plan, numbers: PlanNumbers): Limits {
  if (plan !== "enterprise") return planLimits[plan];
  const { perMinute, perDay } = numbers;
  return perMinute && perDay ? { perMinute, perDay } : planLimits.free;
}
