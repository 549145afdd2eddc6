import type { Context } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../context.ts";
import { ApiError, messages } from "../errors.ts";
import { methodNotAllowedError } from "./method-not-allowed.ts";

/** The request headers the API reads, which a page may send. */
const ALLOWED_REQUEST_HEADERS = [
  "Authorization",
  "Content-Type",
  "Idempotency-Key",
  "If-Match",
  "If-None-Match",
  "Consistency-Token",
];

const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

/**
 * What follows a Hono middleware called as a plain step at its own point
 * (a preflight's answer, the request's name, nosniff): nothing.
 */
export const nothing = async () => {};

/**
 * Answers an `OPTIONS` under the CORS paths before any key is asked for or
 * budget spent. A CORS preflight (with Access-Control-Request-Method) gets
 * 204 allowing exactly the methods the app serves at that path; any other
 * `OPTIONS` asks for a method no route serves, so 405 naming those that
 * are; a path the app serves nothing at is 404 either way. hono/cors
 * answers every `OPTIONS` and allows every method, so it answers only the
 * preflights this lets through.
 */
export function preflightAnswer(
  methodsAt: (path: string) => string[],
): (c: Context<AppEnv>) => Promise<Response> {
  const answer = cors({
    origin: "*",
    allowMethods: (_origin, c) => methodsAt(c.req.path),
    allowHeaders: ALLOWED_REQUEST_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
  return async (c) => {
    const served = methodsAt(c.req.path);
    if (served.length === 0) throw new ApiError("not_found", messages.notFound);
    if (!c.req.header("Access-Control-Request-Method")) {
      throw methodNotAllowedError(c.req.method, served);
    }
    // For an OPTIONS, hono/cors returns its answer and never calls what follows.
    return (await answer(c, nothing)) ?? c.res;
  };
}
