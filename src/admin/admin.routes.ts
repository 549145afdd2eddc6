import { createRoute, z } from "@hono/zod-openapi";
import {
  AccountKeysSchema,
  AccountPlanBodySchema,
  AccountPlanChangeSchema,
  AccountQuerySchema,
  CreatedKeySchema,
  CreateKeyBodySchema,
  EmailParamsSchema,
  InviteSchema,
  KeyHashParamsSchema,
  KeyPlanBodySchema,
  KeySummarySchema,
} from "./admin.schemas.ts";

/**
 * The operator's endpoints, which `npm run key` and `npm run account` call.
 * Operator-only, so every one is left out of the public OpenAPI document.
 */

const json = <T extends z.ZodType>(schema: T) => ({
  content: { "application/json": { schema } },
});

const body = <T extends z.ZodType>(schema: T) => ({ required: true, ...json(schema) });

export const createKey = createRoute({
  method: "post",
  path: "/keys",
  hide: true,
  request: { body: body(CreateKeyBodySchema) },
  responses: {
    201: {
      description: "The key, shown this once, and what it belongs to.",
      ...json(CreatedKeySchema),
    },
  },
});

export const listKeys = createRoute({
  method: "get",
  path: "/keys",
  hide: true,
  request: { query: AccountQuerySchema },
  responses: {
    200: {
      description: "The account and its keys, newest first.",
      ...json(AccountKeysSchema),
    },
  },
});

export const revokeKey = createRoute({
  method: "post",
  path: "/keys/{hash}/revoke",
  hide: true,
  request: { params: KeyHashParamsSchema },
  responses: { 200: { description: "The key, revoked.", ...json(KeySummarySchema) } },
});

export const keyPlan = createRoute({
  method: "post",
  path: "/keys/{hash}/plan",
  hide: true,
  request: { params: KeyHashParamsSchema, body: body(KeyPlanBodySchema) },
  responses: { 200: { description: "The key with its new limits.", ...json(KeySummarySchema) } },
});

export const accountPlan = createRoute({
  method: "post",
  path: "/accounts/{email}/plan",
  hide: true,
  request: { params: EmailParamsSchema, body: body(AccountPlanBodySchema) },
  responses: {
    200: {
      description: "The account on its new plan, and how many of its keys took it.",
      ...json(AccountPlanChangeSchema),
    },
  },
});

export const invite = createRoute({
  method: "post",
  path: "/accounts/{email}/invite",
  hide: true,
  request: { params: EmailParamsSchema },
  responses: {
    201: {
      description: "A one-time link that sets the account's password.",
      ...json(InviteSchema),
    },
  },
});

export const dispatchEvents = createRoute({
  method: "post",
  path: "/events/dispatch",
  hide: true,
  responses: {
    200: {
      description:
        "The events waiting in the outbox, sent to the queue as the scheduled sweep sends them.",
      ...json(z.object({ deliveriesQueued: z.number() })),
    },
  },
});
