import type { HitResult, WindowReport } from "./rate-limit-types.ts";

/** The window with the fewest requests left; the first listed (the minute) wins a tie. */
function tightest(windows: WindowReport[]): WindowReport {
  return windows.reduce((tight, window) => (window.remaining < tight.remaining ? window : tight));
}

/**
 * The X-RateLimit-* trio and the IETF RateLimit fields for one limiter answer.
 * A refused request reports nothing left until it may retry.
 */
export function rateLimitHeaders(
  result: HitResult,
  now: number = Date.now(),
): Record<string, string> {
  const window = tightest(result.windows);
  const nowSeconds = Math.floor(now / 1000);
  const refused = result.retryAfter !== undefined;
  const remaining = refused ? 0 : window.remaining;
  const reset = refused ? nowSeconds + (result.retryAfter ?? 0) : window.reset;
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": String(window.limit),
    "X-RateLimit-Remaining": String(remaining),
    "X-RateLimit-Reset": String(reset),
    "RateLimit-Policy": result.windows
      .map((w) => `"${w.name}";q=${w.limit};w=${w.lengthSeconds}`)
      .join(", "),
    RateLimit: `"${window.name}";r=${remaining};t=${Math.max(0, reset - nowSeconds)}`,
  };
  if (refused) headers["Retry-After"] = String(result.retryAfter);
  return headers;
}
