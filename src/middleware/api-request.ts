import type { Context, MiddlewareHandler } from "hono";
import type { DeprecationNotice } from "../api/deprecation.ts";
import type { ApiRoute } from "../api/route-table.ts";
import type { AppEnv } from "../context.ts";
import { identify, workingKey } from "./authenticate.ts";
import { deprecationMarks, goneAfterSunset } from "./deprecation.ts";
import { spendBudget } from "./rate-limit.ts";
import { readSession } from "./read-consistency.ts";
import { bodyChecks } from "./request-body.ts";
import { checkScopes } from "./require-scope.ts";

/**
 * What every `/v1` request goes through before its route, as plain calls in
 * one place, in the order the contract fixes: the marks of a deprecated
 * operation (on every reply, errors included); who is calling; their budget
 * (429); the 401 for anyone without a working key, or the 403 for a key
 * used from outside its ranges; the request's D1 session (a malformed
 * Consistency-Token is a 400). Then the route, and after it the sealed
 * bookmark. What the reply must carry is gathered in one record of headers,
 * which the response chain puts on whatever reply follows.
 */
export function apiRequest(notices: readonly DeprecationNotice[]): MiddlewareHandler<AppEnv> {
  const markDeprecated = deprecationMarks(notices);
  return async function apiRequest(c, next) {
    const services = c.get("services");
    const headers: Record<string, string> = {};
    c.set("replyHeaders", headers);
    markDeprecated(c, services.config, headers);
    const caller = await identify(c, services);
    c.set("caller", caller);
    const keyDead = await spendBudget(c, services, caller, headers);
    const key = workingKey(caller, keyDead);
    c.set("apiKey", key);
    const session = await readSession(c, services, key);
    c.set("services", session.services);
    await next();
    await session.finish(headers);
  };
}

/**
 * What one route asks of a request before its handler, as one step: the
 * scope its key needs (after the limiter, so the request counts against the
 * key, and before any check of its input, so a key without the scope learns
 * nothing from them), the 410 of a deprecated operation past its sunset,
 * the checks of its body, then the validation of its input (`validate`).
 */
export function routeChecks(
  route: ApiRoute,
  notice: DeprecationNotice | undefined,
  validate: ((c: Context<AppEnv>) => Promise<void>) | undefined,
): MiddlewareHandler<AppEnv> {
  const needed = [route.scope];
  const gone = notice && goneAfterSunset(notice);
  const body = bodyChecks(route);
  return async function routeChecks(c, next) {
    checkScopes(c.get("apiKey"), needed);
    gone?.(c);
    if (body) await body(c);
    if (validate) await validate(c);
    await next();
  };
}
