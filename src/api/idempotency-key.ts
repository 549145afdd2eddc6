import { type RouteConfig, z } from "@hono/zod-openapi";

/** Printable ASCII (space to tilde): what an Idempotency-Key may hold. */
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;

/** The request header of every operation that takes an Idempotency-Key. */
const IdempotencyHeadersSchema = z.object({
  // The validator matches header names case-insensitively.
  "Idempotency-Key": z
    .string()
    .min(1)
    .max(255)
    .regex(PRINTABLE_ASCII, "Must be printable ASCII")
    .optional()
    .openapi({
      param: {
        name: "Idempotency-Key",
        in: "header",
        description:
          "Makes retries safe: the same key with the same body within 24 hours returns the first response again, as it was sent, and changes nothing; with a different body, or on another operation, it gives 422. 1–255 printable ASCII characters; scoped to the API key.",
      },
      example: "9b2f7c1e-4a5d-4e8f-b3c2-7d6e5f4a3b21",
    }),
});

/** What every operation that takes an Idempotency-Key says of it: the one place it is written. */
const IDEMPOTENCY_SENTENCE =
  "With an `Idempotency-Key`, its retries with the same request (concurrent ones too) get the first response as sent, with `Idempotent-Replayed: true`, and change nothing.";

/**
 * An operation whose route takes an Idempotency-Key, as documented: the
 * header among its request's, and the sentence after its description.
 */
export function idempotentOperation<C extends RouteConfig>(config: C): C {
  const headers = config.request?.headers;
  if (headers !== undefined && !(headers instanceof z.ZodObject)) {
    throw new Error(`${config.path}: an idempotent route's headers are one object`);
  }
  return {
    ...config,
    description: `${config.description}\n\n${IDEMPOTENCY_SENTENCE}`,
    request: {
      ...config.request,
      headers: headers ? headers.extend(IdempotencyHeadersSchema.shape) : IdempotencyHeadersSchema,
    },
  };
}
