import { z } from "@hono/zod-openapi";
import { operatorRoutes } from "../api/route-table.ts";
import { messages } from "../errors.ts";
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

const json = <T extends z.ZodType>(schema: T) => ({
  content: { "application/json": { schema } },
});

const body = <T extends z.ZodType>(schema: T) => ({ required: true, ...json(schema) });

/**
 * The operator's endpoints, which `npm run key` and `npm run account` call,
 * keyed by name. Operator-only, so every one is left out of the public
 * OpenAPI document. A path that names no key or account is simply not found.
 */
export const adminRoutes = operatorRoutes({
  createKey: {
    method: "post",
    path: "/keys",
    request: { body: body(CreateKeyBodySchema) },
    responses: {
      201: {
        description: "The key, shown this once, and what it belongs to.",
        ...json(CreatedKeySchema),
      },
    },
  },
  listKeys: {
    method: "get",
    path: "/keys",
    request: { query: AccountQuerySchema },
    responses: {
      200: {
        description: "The account and its keys, newest first.",
        ...json(AccountKeysSchema),
      },
    },
  },
  revokeKey: {
    method: "post",
    path: "/keys/{hash}/revoke",
    invalidIdMessage: messages.notFound,
    request: { params: KeyHashParamsSchema },
    responses: { 200: { description: "The key, revoked.", ...json(KeySummarySchema) } },
  },
  keyPlan: {
    method: "post",
    path: "/keys/{hash}/plan",
    invalidIdMessage: messages.notFound,
    request: { params: KeyHashParamsSchema, body: body(KeyPlanBodySchema) },
    responses: { 200: { description: "The key with its new limits.", ...json(KeySummarySchema) } },
  },
  accountPlan: {
    method: "post",
    path: "/accounts/{email}/plan",
    invalidIdMessage: messages.notFound,
    request: { params: EmailParamsSchema, body: body(AccountPlanBodySchema) },
    responses: {
      200: {
        description: "The account on its new plan, and how many of its keys took it.",
        ...json(AccountPlanChangeSchema),
      },
    },
  },
  invite: {
    method: "post",
    path: "/accounts/{email}/invite",
    invalidIdMessage: messages.notFound,
    request: { params: EmailParamsSchema },
    responses: {
      201: {
        description: "A one-time link that sets the account's password.",
        ...json(InviteSchema),
      },
    },
  },
  dispatchEvents: {
    method: "post",
    path: "/events/dispatch",
    responses: {
      200: {
        description:
          "The events waiting in the outbox, sent to the queue as the scheduled sweep sends them.",
        ...json(z.object({ deliveriesQueued: z.number() })),
      },
    },
  },
});
