import { z } from "@hono/zod-openapi";
import { LimitsSchema, PlanSchema } from "../keys/key-record.ts";

export const KeyHashParamsSchema = z.object({
  hash: z.string().regex(/^[0-9a-f]{64}$/, "Expected the hex SHA-256 of a key"),
});

/** What the operator command sends after it has written the key's KV record. */
export const KeyPolicyBodySchema = z
  .strictObject({
    revoked: z.boolean(),
    plan: PlanSchema,
    limits: LimitsSchema.optional(),
    version: z.number().int().nonnegative(),
  })
  .refine((body) => (body.plan === "enterprise") === (body.limits !== undefined), {
    path: ["limits"],
    message: "Enterprise needs limits; other plans take theirs from the plan",
  });
