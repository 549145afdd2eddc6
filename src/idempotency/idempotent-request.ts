import type { Context } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../env.ts";
import { ApiError, messages } from "../errors.ts";
import { toBase64 } from "../utils/base64url.ts";
import { sha256 } from "../utils/sha256.ts";
import type { IdempotencyClaim, Replayed, Reused, Stored } from "./idempotency.queries.ts";

/**
 * Identifies a request body by meaning: its fields in a fixed order, so a
 * retry re-serialised with other spacing or key order still matches.
 */
async function fingerprint(fields: readonly unknown[]): Promise<string> {
  return toBase64(await sha256(JSON.stringify(fields)));
}

/**
 * The claim a request with an Idempotency-Key makes on `operation`, scoped
 * to the API key that sent it; `fields` are the body's values in a fixed order.
 */
export async function claimOf(
  c: Context<AppEnv>,
  idempotencyKey: string,
  operation: string,
  fields: readonly unknown[],
  now: number,
): Promise<IdempotencyClaim> {
  return {
    apiKeyHash: c.var.apiKey.hash,
    idempotencyKey,
    operation,
    requestHash: await fingerprint(fields),
    now,
  };
}

/**
 * What a keyed request answers: the response stored with its key, its own
 * or, marked `Idempotent-Replayed: true`, an earlier request's, as it was
 * sent; 422 when the key was used for another request. `status` is the one
 * the route sends on success, `schema` its body.
 */
export function storedBody<T>(
  c: Context<AppEnv>,
  outcome: Stored | Replayed | Reused,
  status: number,
  schema: z.ZodType<T>,
): T {
  if (outcome.kind === "reused") {
    throw new ApiError("idempotency_key_reused", messages.idempotencyKeyReused);
  }
  if (outcome.response.status !== status) {
    throw new Error(`a stored ${outcome.response.status} reply where the route sends ${status}`);
  }
  if (outcome.kind === "replayed") c.header("Idempotent-Replayed", "true");
  return schema.parse(outcome.response.body);
}
