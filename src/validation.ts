import { type Hook, type RouteConfig, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ZodSafeParseResult } from "zod";
import { isJsonMediaType } from "./api/request-bodies.ts";
import type { AppEnv } from "./context.ts";
import { ApiError, type ErrorDetail, messages } from "./errors.ts";

/**
 * Turns a failed Zod validation into the 400 Error body with one detail per
 * invalid field. Zod reports every failed check, so one bad value can yield
 * two near-identical lines (an empty name is also blank; 2^53 breaks both int
 * and max): the first says all a client needs about that field.
 */
export const rejectInvalid: Hook<unknown, AppEnv, string, undefined> = (result) => {
  if (result.success) return;
  const details = result.error.issues.flatMap((issue): ErrorDetail[] => {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: base ? `${base}.${key}` : key,
        message: "Unknown field",
      }));
    }
    const target = result.target === "json" ? "body" : result.target;
    return [{ path: base || target, message: issue.message }];
  });
  const seen = new Set<string>();
  const first = details.filter((detail) => !seen.has(detail.path) && seen.add(detail.path));
  const summary = first.map((detail) => `${detail.path}: ${detail.message}`).join("; ");
  throw new ApiError("invalid_request", messages.invalidRequest(summary), { details: first });
};

/**
 * For a route whose path names one resource: a malformed id names nothing,
 * so it is simply not found (`message`); any other invalid input is the 400.
 */
export function notFoundWhenIdInvalid(message: string): Hook<unknown, AppEnv, string, undefined> {
  return (result, c) => {
    if (!result.success && result.target === "param") throw new ApiError("not_found", message);
    return rejectInvalid(result, c);
  };
}

/** What a route declares of its input, as its table writes it. */
type RequestInput = NonNullable<RouteConfig["request"]>;

/** A schema with the parse Zod gives every schema. */
type Schema = { safeParseAsync(value: unknown): Promise<ZodSafeParseResult<unknown>> };

/** One target's value as Hono's validator reads it, and the schema it must meet. */
interface Check {
  target: "query" | "param" | "header" | "json";
  schema: Schema;
  read(c: Context<AppEnv>): unknown | Promise<unknown>;
}

/** The query, its repeated names as lists, as hono/validator reads it. */
function queryOf(c: Context<AppEnv>): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(c.req.queries()).map(([name, values]) => [
      name,
      values.length === 1 ? (values[0] ?? "") : values,
    ]),
  );
}

/** The headers, named as the schema names them (they arrive in lower case). */
function headersFor(schema: z.ZodObject): (c: Context<AppEnv>) => Record<string, string> {
  const names = new Map(Object.keys(schema.shape).map((name) => [name.toLowerCase(), name]));
  return (c) =>
    Object.fromEntries(
      Object.entries(c.req.header()).map(([name, value]) => [names.get(name) ?? name, value]),
    );
}

/**
 * The body's JSON value, as hono/validator reads it: none (an empty object)
 * unless the body came as JSON, and a 400 when it is not JSON.
 */
async function jsonOf(c: Context<AppEnv>): Promise<unknown> {
  const mediaType = (c.req.header("Content-Type") ?? "").split(";")[0]?.trim() ?? "";
  if (!isJsonMediaType(mediaType)) return {};
  try {
    return await c.req.json();
  } catch {
    throw new ApiError("invalid_json", messages.invalidJson);
  }
}

/** The one schema of a route's JSON bodies, whichever JSON media type it came as. */
function jsonSchemaOf(request: RequestInput): Schema | undefined {
  const content = request.body?.content ?? {};
  const schemas = new Set(
    Object.entries(content)
      .filter(([mediaType]) => isJsonMediaType(mediaType))
      .map(([, media]) => (media && "schema" in media ? media.schema : undefined)),
  );
  if (schemas.size > 1) throw new Error("a route's JSON media types must share one schema");
  const [schema] = schemas;
  return schema instanceof z.ZodType ? schema : undefined;
}

/**
 * Validates a request's input as its route declares it, in the order
 * @hono/zod-openapi's validators take (query, path, headers, body), as one
 * call: each target parsed with its schema once, a failure handed to `hook`
 * (which throws the 400, or the 404 of an identifier), the values stored for
 * `c.req.valid`. The body's media type and JSON syntax are checked before
 * this (see middleware/request-body.ts), which leaves the parsed value in
 * Hono's cache; one schema serves every JSON media type a route takes.
 */
export function inputValidation(
  request: RouteConfig["request"],
  hook: Hook<unknown, AppEnv, string, undefined>,
): ((c: Context<AppEnv>) => Promise<void>) | undefined {
  if (!request) return undefined;
  if (request.cookies) throw new Error("no route reads cookies");
  const checks: Check[] = [];
  if (request.query) {
    checks.push({ target: "query", schema: request.query, read: queryOf });
  }
  if (request.params) {
    checks.push({ target: "param", schema: request.params, read: (c) => c.req.param() });
  }
  if (request.headers) {
    // A list of header parameters would be left unchecked: each route names its headers in one object.
    if (!(request.headers instanceof z.ZodObject))
      throw new Error("a route's headers must be one object schema");
    const headers = request.headers;
    checks.push({ target: "header", schema: headers, read: headersFor(headers) });
  }
  const json = jsonSchemaOf(request);
  if (json) checks.push({ target: "json", schema: json, read: jsonOf });
  if (checks.length === 0) return undefined;
  return async (c) => {
    for (const { target, schema, read } of checks) {
      const value = await read(c);
      const result = await schema.safeParseAsync(value);
      // A hook throws on a failure; only a success is stored.
      await hook({ ...result, target }, c);
      if (result.success) c.req.addValidatedData(target, result.data as object);
    }
  };
}
