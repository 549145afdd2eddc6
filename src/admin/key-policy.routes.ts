import { createRoute } from "@hono/zod-openapi";
import { jsonBody } from "../middleware/json-body.ts";
import { KeyHashParamsSchema, KeyPolicyBodySchema } from "./key-policy.schemas.ts";

/** Operator-only, so it is left out of the public OpenAPI document. */
export const applyKeyPolicyRoute = createRoute({
  method: "post",
  path: "/keys/{hash}/policy",
  hide: true,
  middleware: [jsonBody()] as const,
  request: {
    params: KeyHashParamsSchema,
    body: { required: true, content: { "application/json": { schema: KeyPolicyBodySchema } } },
  },
  responses: {
    204: { description: "The key's Durable Object holds the new policy." },
  },
});
