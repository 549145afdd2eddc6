import { z } from "zod";
import { LimitsSchema } from "../rate-limit/plans.ts";
import { SCOPES } from "../scopes.ts";

/**
 * The KV record of one API key, under the key's hash: a projection of its D1
 * row (and its account's plan) made for the hot path, so a request needs
 * neither the account nor the plan table, and its scope, expiry and address
 * checks are comparisons on it. Only the module that changes keys writes it,
 * always from the row it has just written.
 */
export const KeyRecordSchema = z.strictObject({
  version: z.number().int().nonnegative(),
  /** The account the key belongs to, which its Consistency-Tokens are bound to. */
  accountId: z.number().int().positive(),
  lastFour: z.string().length(4),
  limits: LimitsSchema,
  revoked: z.boolean(),
  /** Unix milliseconds at which the key stops working: its own expiry or its roll's grace end, the earlier. */
  expiresAt: z.number().int().optional(),
  scopes: z.array(z.enum(SCOPES)),
  /** The CIDR ranges it may be used from; absent for any address. */
  allowedRanges: z.array(z.string()).optional(),
});
export type KeyRecord = z.infer<typeof KeyRecordSchema>;
