import type { z } from "zod";
import type { Claim, Made, Replayed, Reused, Stored } from "../changes/outcomes.ts";
import { ApiError, messages } from "../errors.ts";
import { toBase64 } from "../utils/base64url.ts";
import { sha256 } from "../utils/sha256.ts";

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
  apiKeyHash: string,
  idempotencyKey: string,
  operation: string,
  fields: readonly unknown[],
  now: number,
): Promise<Claim> {
  return { apiKeyHash, idempotencyKey, operation, requestHash: await fingerprint(fields), now };
}

/**
 * What a create answers: what it made, or for a keyed request the response
 * stored with its key, its own or an earlier request's (`replayed`, sent
 * with `Idempotent-Replayed: true`), as it was sent; 422 when the key was
 * used for another request. `status` is the one the route sends on
 * success, `schema` its body.
 */
export function replyOf<T>(
  outcome: Made<T> | Stored | Replayed | Reused,
  status: number,
  schema: z.ZodType<T>,
): { body: T; replayed: boolean } {
  if (outcome.kind === "made") return { body: outcome.body, replayed: false };
  if (outcome.kind === "reused") {
    throw new ApiError("idempotency_key_reused", messages.idempotencyKeyReused);
  }
  if (outcome.response.status !== status) {
    throw new Error(`a stored ${outcome.response.status} reply where the route sends ${status}`);
  }
  return { body: schema.parse(outcome.response.body), replayed: outcome.kind === "replayed" };
}
