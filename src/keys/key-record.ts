import { z } from "zod";

export const PlanSchema = z.enum(["free", "pro", "business", "enterprise"]);
export type Plan = z.infer<typeof PlanSchema>;

export const LimitsSchema = z.object({
  perMinute: z.number().int().positive(),
  perDay: z.number().int().positive(),
});
export type Limits = z.infer<typeof LimitsSchema>;

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

/** A key no request may use any more: revoked, or past its grace period. */
export function isDead(record: Pick<KeyRecord, "revoked" | "expiresAt">, now: number): boolean {
  return record.revoked || (record.expiresAt !== undefined && record.expiresAt <= now);
}
