/**
 * What can narrow a new key, fixed when it is made: its scopes, how long it
 * lives, the addresses it may be used from. One schema for every way a key
 * is made (the admin endpoint, and so the operator command; the dashboard's
 * form), under Node's type stripping too: erasable syntax only.
 */
import { z } from "zod";
import { SCOPES } from "../scopes.ts";
import { parseRange } from "./address-ranges.ts";

const MINUTE_SECONDS = 60;
/** The longest a key may live: a year of 365 days. */
const YEAR_SECONDS = 365 * 24 * 60 * 60;
const MAX_RANGES = 10;

const ScopesSchema = z
  .array(z.enum(SCOPES))
  .min(1, "Give at least one scope; without a list a key has all of them")
  .refine((scopes) => new Set(scopes).size === scopes.length, "Each scope at most once");

const RangeSchema = z.string().transform((text, ctx) => {
  const parsed = parseRange(text);
  if ("range" in parsed) return parsed.range;
  ctx.addIssue({ code: "custom", message: parsed.problem });
  return z.NEVER;
});

export const KeyRestrictionsSchema = z.object({
  /** Default: all seven. */
  scopes: ScopesSchema.optional(),
  /** Seconds from its making until the key stops working; default: never. */
  expiresInSeconds: z
    .number()
    .int()
    .min(MINUTE_SECONDS, "A key lives at least a minute")
    .max(YEAR_SECONDS, "A key lives at most a year (365 days)")
    .optional(),
  /** Default: any address. */
  allowedRanges: z
    .array(RangeSchema)
    .min(1, "Give at least one range; without a list any address may use the key")
    .max(MAX_RANGES, `At most ${MAX_RANGES} ranges`)
    .optional(),
});
export type KeyRestrictions = z.infer<typeof KeyRestrictionsSchema>;
