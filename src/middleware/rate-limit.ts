import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { limitsOf } from "../rate-limit/plans.ts";
import { type RateLimitClient, rateLimitClient } from "../rate-limit/rate-limit-client.ts";
import { rateLimitHeaders } from "../rate-limit/rate-limit-headers.ts";
import type { HitResult } from "../rate-limit/rate-limit-types.ts";
import { unauthorized } from "./authenticate.ts";

function refusal(result: HitResult, headers: Record<string, string>): ApiError {
  if (result.outcome === "banned") {
    return new ApiError(
      "api_key_banned",
      "This API key is temporarily banned for repeated requests over its rate limit; retry after the time in Retry-After.",
      { headers },
    );
  }
  return new ApiError("rate_limited", "Rate limit exceeded; retry after the time in Retry-After.", {
    headers,
  });
}

/** Methods whose handlers change nothing, so they may run while the limiter decides. */
const SAFE_METHODS = new Set(["GET", "HEAD"]);

/**
 * The headers for an admitted request, or the refusal: 429 when over budget,
 * 401 when the key's Durable Object knows it is revoked (the caller's IP
 * budget then pays, as for any bad key).
 */
async function admit(
  result: HitResult,
  limiter: RateLimitClient,
  clientIp: string,
): Promise<Record<string, string>> {
  if (result.outcome === "revoked") {
    const keyless = await limiter.hitKeyless(clientIp);
    const headers = rateLimitHeaders(keyless);
    if (keyless.outcome !== "allowed") throw refusal(keyless, headers);
    throw unauthorized(true, headers);
  }
  const headers = rateLimitHeaders(result);
  if (result.outcome !== "allowed") throw refusal(result, headers);
  return headers;
}

/**
 * Spends one request from the caller's budget (the key's windows, or the
 * client IP's keyless budget), answers 429 or 401 where due, and puts the
 * budget's headers on whatever reply follows. For reads, the handler's query
 * runs while the limiter decides, so a read costs the slower of the two
 * round trips rather than their sum; a refusal discards what it produced.
 * Writes wait for the decision, so nothing is written for a refused request.
 */
export function rateLimit(): MiddlewareHandler<AppEnv> {
  return async function rateLimit(c, next) {
    const limiter = rateLimitClient(c.env.RATE_LIMITER);
    const caller = c.get("caller");
    const clientIp = c.req.header("CF-Connecting-IP") ?? "unknown";
    if (caller.kind === "anonymous") {
      const result = await limiter.hitKeyless(clientIp);
      const headers = rateLimitHeaders(result);
      if (result.outcome !== "allowed") throw refusal(result, headers);
      throw unauthorized(caller.keySent, headers);
    }
    const { hash, record } = caller.key;
    c.set("apiKey", caller.key);
    const decision = limiter.hitKey(hash, {
      limits: limitsOf(record),
      revoked: record.revoked,
      version: record.version,
    });
    let headers: Record<string, string>;
    if (SAFE_METHODS.has(c.req.method)) {
      // Handled here so a failure while the handler runs is not reported as unhandled; awaited below.
      decision.catch(() => {});
      await next();
      try {
        headers = await admit(await decision, limiter, clientIp);
      } catch (error) {
        // Hono carries the current reply's headers over to the error reply; the
        // discarded read's (Link, say) must not reach the refused caller.
        for (const name of [...c.res.headers.keys()]) c.res.headers.delete(name);
        throw error;
      }
    } else {
      headers = await admit(await decision, limiter, clientIp);
      await next();
    }
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
