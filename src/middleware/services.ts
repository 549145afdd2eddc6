import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { buildServices } from "../services.ts";

/** Hands the request the isolate's services, so nothing after this reaches into a binding. */
export function services(): MiddlewareHandler<AppEnv> {
  return async function services(c, next) {
    c.set("services", buildServices(c.env));
    await next();
  };
}
