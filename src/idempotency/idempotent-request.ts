import { z } from "@hono/zod-openapi";
import type { Context, Handler } from "hono";
import type { ApiRoute } from "../api/route-table.ts";
import type { Made, Replayed, Reused, Stored } from "../changes/outcomes.ts";
import type { AppEnv } from "../context.ts";
import { ApiError, messages } from "../errors.ts";
import { toBase64 } from "../utils/base64url.ts";
import { sha256 } from "../utils/sha256.ts";

/** What the trait reads of a request its route's validators passed. */
type Validated = Context<AppEnv, string, { out: { json: unknown; param: unknown } }>;

/** JSON with every object's keys in order: a value by meaning, whatever its layout. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, each: unknown) =>
    each !== null && typeof each === "object" && !Array.isArray(each)
      ? Object.fromEntries(Object.entries(each).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : each,
  );
}

/**
 * The body by meaning: a JSON body as validated, each field its schema
 * names and the request left out as `null`; any other body as its media
 * type and the SHA-256 of its bytes.
 */
async function bodyOf(c: Validated, route: ApiRoute): Promise<unknown> {
  const content = route.request?.body?.content;
  if (content === undefined) return null;
  const json = content["application/json"];
  const schema = json && "schema" in json ? json.schema : undefined;
  if (schema === undefined) {
    const type = c.req.header("Content-Type")?.split(";")[0]?.trim().toLowerCase() ?? null;
    return { type, sha256: toBase64(await sha256(await c.req.arrayBuffer())) };
  }
  const sent = c.req.valid("json") as Record<string, unknown>;
  const fields = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  return { ...Object.fromEntries(fields.map((field) => [field, null])), ...sent };
}

/**
 * Wraps the handler of a route the table marks `idempotent`. The route's
 * middleware runs before its validators, so the trait wraps the handler
 * rather than standing in front of it: with an `Idempotency-Key`, the
 * request's claim (the key under the caller's API key, on this very
 * operation, with the fingerprint of its path parameters and body by
 * meaning) is handed to the handler's change as `claim`; a reply the change
 * replayed from the key's record carries `Idempotent-Replayed: true`.
 * Without a key, the handler runs as it is.
 */
export function idempotentHandler(operationId: string, route: ApiRoute, handler: Handler<AppEnv>) {
  return async function idempotent(c: Validated, next: () => Promise<void>) {
    const idempotencyKey = c.req.header("Idempotency-Key");
    if (idempotencyKey === undefined) return handler(c, next);
    const request = { params: c.req.valid("param") ?? null, body: await bodyOf(c, route) };
    c.set("claim", {
      apiKeyHash: c.get("apiKey").hash,
      idempotencyKey,
      operation: operationId,
      requestHash: toBase64(await sha256(canonicalJson(request))),
      now: Date.now(),
    });
    const reply = await handler(c, next);
    if (reply instanceof Response && c.get("services").db.changes?.replayed) {
      reply.headers.set("Idempotent-Replayed", "true");
    }
    return reply;
  };
}

/**
 * The body a change answers: what it made, or for a keyed request the
 * response stored with its key, its own or an earlier request's, as it was
 * sent; 422 when the key was used for another request. `status` is the one
 * the route sends on success, `schema` its body.
 */
export function replyOf<T>(
  outcome: Made<T> | Stored | Replayed | Reused,
  status: number,
  schema: z.ZodType<T>,
): T {
  if (outcome.kind === "made") return outcome.body;
  if (outcome.kind === "reused") {
    throw new ApiError("idempotency_key_reused", messages.idempotencyKeyReused);
  }
  if (outcome.response.status !== status) {
    throw new Error(`a stored ${outcome.response.status} reply where the route sends ${status}`);
  }
  return schema.parse(outcome.response.body);
}
