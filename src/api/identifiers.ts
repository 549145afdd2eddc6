import { z } from "@hono/zod-openapi";

/** The largest integer a JSON client can round-trip exactly (2^53 − 1). */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/** An identifier the service assigns: a whole number from 1 to 2^53 − 1. */
export const IdentifierSchema = z.int().min(1).max(MAX_ID).openapi({ format: "int64" });

/** A record's own `id`, which the service assigned when the record was made. */
export const assignedId = (example: number) =>
  IdentifierSchema.openapi({ description: "Assigned by the service on creation.", example });

/**
 * A whole number from a path or query string, written only in digits: plain
 * coercion would also read "0x10", "1e1", " 5" or "10.0" as numbers.
 */
export function digitsAsInteger<T extends z.ZodType>(schema: T) {
  return z.preprocess(
    (raw) => (typeof raw === "string" && /^(?:0|[1-9][0-9]{0,19})$/.test(raw) ? Number(raw) : raw),
    schema,
  );
}

/**
 * The path parameters of a route that names one record: `name`, an
 * identifier the service assigned, written in digits (with what it is,
 * where the document says so).
 */
export function idParams<N extends string>(name: N, example: number, description?: string) {
  const param =
    description === undefined
      ? { name, in: "path" as const }
      : { name, in: "path" as const, description };
  const id = digitsAsInteger(z.int().min(1).max(MAX_ID)).openapi({
    param,
    format: "int64",
    example,
  });
  return z.object({ [name]: id } as Record<N, typeof id>);
}
/** An identifier in a query string, such as a listing's repeatable `id` filter. */
export const IdentifierParameterSchema = digitsAsInteger(z.int().min(1).max(MAX_ID)).openapi({
  type: "integer",
  format: "int64",
  minimum: 1,
  maximum: MAX_ID,
});
