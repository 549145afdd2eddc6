import { z } from "@hono/zod-openapi";
import { type OperatorRoute, operatorRoutes } from "../api/route-table.ts";
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

/** A request's required JSON body. */
const body = <T extends z.ZodType>(schema: T) => ({ required: true, ...json(schema) });

/** A reply: what it is, and its JSON body. */
const reply = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  ...json(schema),
});

/** A change to the key or account the path names (a path that names none is not found). */
const onRecord = {
  method: "post",
  invalidIdMessage: messages.notFound,
} satisfies Partial<OperatorRoute>;

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
      201: reply("The key, shown this once, and what it belongs to.", CreatedKeySchema),
    },
  },
  listKeys: {
    method: "get",
    path: "/keys",
    request: { query: AccountQuerySchema },
    responses: {
      200: reply("The account and its keys, newest first.", AccountKeysSchema),
    },
  },
  revokeKey: {
    ...onRecord,
    path: "/keys/{hash}/revoke",
    request: { params: KeyHashParamsSchema },
    responses: { 200: reply("The key, revoked.", KeySummarySchema) },
  },
  keyPlan: {
    ...onRecord,
    path: "/keys/{hash}/plan",
    request: { params: KeyHashParamsSchema, body: body(KeyPlanBodySchema) },
    responses: { 200: reply("The key with its new limits.", KeySummarySchema) },
  },
  accountPlan: {
    ...onRecord,
    path: "/accounts/{email}/plan",
    request: { params: EmailParamsSchema, body: body(AccountPlanBodySchema) },
    responses: {
      200: reply(
        "The account on its new plan, and how many of its keys took it.",
        AccountPlanChangeSchema,
      ),
    },
  },
  invite: {
    ...onRecord,
    path: "/accounts/{email}/invite",
    request: { params: EmailParamsSchema },
    responses: {
      201: reply("A one-time link that sets the account's password.", InviteSchema),
    },
  },
  dispatchEvents: {
    method: "post",
    path: "/events/dispatch",
    responses: {
      200: reply(
        "The events waiting in the outbox, sent to the queue as the scheduled sweep sends them.",
        z.object({ deliveriesQueued: z.number() }),
      ),
    },
  },
});
