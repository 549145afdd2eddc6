import { z } from "zod";
import { LimitsSchema } from "../rate-limit/plans.ts";

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
