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

const REFUSAL_MEMORY_MAX = 1_000;
const REVOKED_MEMORY_MS = 60_000;

/**
 * Keys this isolate saw refused, and until when. Their reads wait for the
 * limiter again, so an over-limit, banned or revoked key cannot keep D1 busy
 * by reading in a loop.
 */
const refusedUntil = new Map<string, number>();

function rememberRefusal(hash: string, until: number): void {
  if (refusedUntil.size >= REFUSAL_MEMORY_MAX) {
    const oldest = refusedUntil.keys().next();
    if (!oldest.done) refusedUntil.delete(oldest.value);
  }
  refusedUntil.set(hash, until);
}

function mayReadAhead(method: string, hash: string, now: number): boolean {
  return SAFE_METHODS.has(method) && (refusedUntil.get(hash) ?? 0) <= now;
}

/**
 * The headers for an admitted request, or the refusal: 429 when over budget,
 * 401 when the key's Durable Object knows it is revoked. A revoked key's
 * request is charged to the caller's IP budget, as for any bad key, but is
 * always answered 401: a revocation must never look like a rate limit.
 */
async function admit(
  result: HitResult,
  limiter: RateLimitClient,
  clientIp: string,
  hash: string,
): Promise<Record<string, string>> {
  if (result.outcome === "revoked") {
    rememberRefusal(hash, Date.now() + REVOKED_MEMORY_MS);
    throw unauthorized(true, rateLimitHeaders(await limiter.hitKeyless(clientIp)));
  }
  const headers = rateLimitHeaders(result);
  if (result.outcome !== "allowed") {
    rememberRefusal(hash, Date.now() + (result.retryAfter ?? 1) * 1000);
    throw refusal(result, headers);
  }
  return headers;
}

/**
 * Spends one request from the caller's budget (the key's windows, or the
 * client IP's keyless budget), answers 429 or 401 where due, and puts the
 * budget's headers on whatever reply follows. For reads, the handler's query
 * runs while the limiter decides, so a read costs the slower of the two
 * round trips rather than their sum; a refusal discards what it produced.
 * Writes, and reads by keys refused lately, wait for the decision first.
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
    const readAhead = mayReadAhead(c.req.method, hash, Date.now());
    if (readAhead) {
      // Handled here so a failure while the handler runs is not reported as unhandled; awaited below.
      decision.catch(() => {});
      await next();
    }
    let headers: Record<string, string>;
    try {
      headers = await admit(await decision, limiter, clientIp, hash);
    } catch (error) {
      // Hono carries the current reply's headers over to the error reply; the
      // discarded read's (Link, say) must not reach the refused caller.
      if (readAhead) for (const name of [...c.res.headers.keys()]) c.res.headers.delete(name);
      throw error;
    }
    if (!readAhead) await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
