import { z } from "@hono/zod-openapi";
import { AccountEmailSchema } from "../accounts/account-email.ts";
import { KeyRestrictionsSchema } from "../keys/key-restrictions.ts";
import { PlanSchema } from "../rate-limit/plans.ts";
import { SCOPES } from "../scopes.ts";

export const KeyHashParamsSchema = z.object({
  hash: z.string().regex(/^[0-9a-f]{64}$/, "Expected the hex SHA-256 of a key"),
});

export const EmailParamsSchema = z.object({ email: AccountEmailSchema });

/** Whose keys to list: the account named, else the environment's operator account. */
export const AccountQuerySchema = z.object({ account: AccountEmailSchema.optional() });

const Count = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

interface PlanAndNumbers {
  plan?: string | undefined;
  perMinute?: number | undefined;
  perDay?: number | undefined;
}

/** Enterprise takes its own numbers, both of them and no more a minute than a day; nothing else takes any. */
function numbersFitPlan(body: PlanAndNumbers, ctx: z.RefinementCtx): void {
  const issue = (message: string) => ctx.addIssue({ code: "custom", path: ["perMinute"], message });
  const numbered = body.perMinute !== undefined || body.perDay !== undefined;
  if (body.plan === "enterprise") {
    if (body.perMinute === undefined || body.perDay === undefined) {
      issue("Enterprise needs perMinute and perDay");
    } else if (body.perMinute > body.perDay) {
      issue("perMinute cannot exceed perDay");
    }
  } else if (numbered) {
    issue("Only Enterprise takes its own numbers");
  }
}

export const AccountPlanBodySchema = z
  .strictObject({ plan: PlanSchema, perMinute: Count.optional(), perDay: Count.optional() })
  .superRefine(numbersFitPlan);

/** `account` makes the key follow its account's plan again. */
export const KeyPlanBodySchema = z
  .strictObject({
    plan: z.union([PlanSchema, z.literal("account")]),
    perMinute: Count.optional(),
    perDay: Count.optional(),
  })
  .superRefine(numbersFitPlan);

/**
 * Without a plan the key follows its account's; with one it carries its own
 * limits. Its scopes, life and address ranges are the dashboard's rules.
 */
export const CreateKeyBodySchema = z
  .strictObject({
    account: AccountEmailSchema.optional(),
    plan: PlanSchema.optional(),
    perMinute: Count.optional(),
    perDay: Count.optional(),
    ...KeyRestrictionsSchema.shape,
  })
  .superRefine(numbersFitPlan);

export const KeySummarySchema = z.object({
  hash: z.string(),
  lastFour: z.string(),
  account: z.string(),
  createdAt: z.string(),
  status: z.enum(["active", "rolled", "expired", "revoked"]),
  revokedAt: z.string().nullable(),
  /** When the key stops working whatever happens to it; null: never. */
  expiresAt: z.string().nullable(),
  /** When a rolled key's grace period ends; null for a key never rolled. */
  graceEndsAt: z.string().nullable(),
  scopes: z.array(z.enum(SCOPES)),
  /** Null: any address may use the key. */
  allowedRanges: z.array(z.string()).nullable(),
  /** `account` when the key follows its account's plan, `key` when it has limits of its own. */
  limitsFrom: z.enum(["account", "key"]),
  plan: PlanSchema,
  perMinute: z.number(),
  perDay: z.number(),
});
export type KeySummary = z.infer<typeof KeySummarySchema>;

/** A key as listed: with the minute it last admitted a request (null: never), from its object. */
const ListedKeySchema = KeySummarySchema.extend({ lastUsedAt: z.string().nullable() });
export type ListedKey = z.infer<typeof ListedKeySchema>;

const AccountSummarySchema = z.object({
  email: z.string(),
  plan: PlanSchema,
  perMinute: z.number(),
  perDay: z.number(),
  hasPassword: z.boolean(),
  createdAt: z.string(),
});
export type AccountSummary = z.infer<typeof AccountSummarySchema>;

export const CreatedKeySchema = KeySummarySchema.extend({
  key: z.string(),
  accountCreated: z.boolean(),
});

export const AccountKeysSchema = z.object({
  account: AccountSummarySchema,
  keys: z.array(ListedKeySchema),
});

export const AccountPlanChangeSchema = z.object({
  account: AccountSummarySchema,
  keysUpdated: z.number(),
});

export const InviteSchema = z.object({
  account: AccountSummarySchema,
  accountCreated: z.boolean(),
  link: z.string(),
  expiresAt: z.string(),
});
