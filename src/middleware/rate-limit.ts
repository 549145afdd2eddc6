import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { limitsOf } from "../rate-limit/plans.ts";
import { rateLimitClient } from "../rate-limit/rate-limit-client.ts";
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

/**
 * Spends one request from the caller's budget (the key's windows, or the
 * client IP's keyless budget), answers 429 or 401 where due, and puts the
 * budget's headers on whatever reply follows.
 */
export function rateLimit(): MiddlewareHandler<AppEnv> {
  return async function rateLimit(c, next) {
    const limiter = rateLimitClient(c.env.RATE_LIMITER);
    const caller = c.get("caller");
    let result: HitResult;
    if (caller.kind === "key") {
      const { hash, record } = caller.key;
      result = await limiter.hitKey(hash, {
        limits: limitsOf(record),
        revoked: record.revoked,
        version: record.version,
      });
    } else {
      result = await limiter.hitKeyless(caller.clientIp);
    }
    if (result.outcome === "revoked" && caller.kind === "key") {
      const keyless = await limiter.hitKeyless(c.req.header("CF-Connecting-IP") ?? "unknown");
      const headers = rateLimitHeaders(keyless);
      if (keyless.outcome !== "allowed") throw refusal(keyless, headers);
      throw unauthorized(true, headers);
    }
    const headers = rateLimitHeaders(result);
    if (result.outcome !== "allowed") throw refusal(result, headers);
    if (caller.kind === "anonymous") throw unauthorized(caller.keySent, headers);
    c.set("apiKey", caller.key);
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
