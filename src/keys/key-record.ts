import { z } from "zod";
import { LimitsSchema, PlanSchema } from "../rate-limit/plans.ts";

/**
 * The KV record of one API key, under the key's hash: a projection of its D1
 * row (and its account's plan) made for the hot path, so a request needs
 * neither the account nor the plan table. Only the module that changes keys
 * writes it, always from the row it has just written.
 */
export const KeyRecordSchema = z.strictObject({
  version: z.number().int().nonnegative(),
  lastFour: z.string().length(4),
  limits: LimitsSchema,
  revoked: z.boolean(),
  /** Unix milliseconds at which a rolled key's grace period ends. */
  expiresAt: z.number().int().optional(),
});
export type KeyRecord = z.infer<typeof KeyRecordSchema>;

/**
 * The record the operator command wrote before D1 held keys. Such keys keep
 * working until the import (`npm run key -- import`) has brought them into D1
 * and rewritten their records in the shape above.
 */
export const LegacyKeyRecordSchema = z.object({
  account: z.string().min(1),
  plan: PlanSchema,
  limits: LimitsSchema.optional(),
  createdAt: z.string(),
  revoked: z.boolean(),
  expiresAt: z.string().optional(),
  lastFour: z.string().length(4),
  version: z.number().int().nonnegative(),
});
export type LegacyKeyRecord = z.infer<typeof LegacyKeyRecordSchema>;
