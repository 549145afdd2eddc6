import { z } from "zod";

export const PlanSchema = z.enum(["free", "pro", "business", "enterprise"]);
export type Plan = z.infer<typeof PlanSchema>;

export const LimitsSchema = z.object({
  perMinute: z.number().int().positive(),
  perDay: z.number().int().positive(),
});
export type Limits = z.infer<typeof LimitsSchema>;

/**
 * The KV record of one API key, stored under the key's hash. `version` grows
 * with every change so the key's Durable Object can tell a stale cached copy
 * from the newest one.
 */
export const KeyRecordSchema = z.object({
  account: z.string().min(1),
  plan: PlanSchema,
  limits: LimitsSchema.optional(),
  createdAt: z.string(),
  revoked: z.boolean(),
  expiresAt: z.string().optional(),
  lastFour: z.string().length(4),
  version: z.number().int().nonnegative(),
});
export type KeyRecord = z.infer<typeof KeyRecordSchema>;
