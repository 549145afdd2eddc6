import type { HitResult, WindowReport } from "./rate-limit-types.ts";

/**
 * The window with the fewest requests left. On a tie the first listed (the
 * minute) wins, except for a refused request: there the window that stays
 * shut longest wins, as it is the one Retry-After waits for.
 */
function tightest(windows: WindowReport[], refused: boolean): WindowReport {
  return windows.reduce((tight, window) => {
    if (window.remaining !== tight.remaining) {
      return window.remaining < tight.remaining ? window : tight;
    }
    return refused && window.reset > tight.reset ? window : tight;
  });
}

/**
 * The X-RateLimit-* trio and the IETF RateLimit fields for one limiter answer.
 * A refused request reports nothing left until it may retry; a banned key's
 * report the ban instead of a window, its length listed in the policy.
 */
export function rateLimitHeaders(
  result: HitResult,
  now: number = Date.now(),
): Record<string, string> {
  const refused = result.retryAfter !== undefined;
  const window = tightest(result.windows, refused);
  const nowSeconds = Math.floor(now / 1000);
  const remaining = refused ? 0 : window.remaining;
  const reset = refused ? nowSeconds + (result.retryAfter ?? 0) : window.reset;
  const policies = result.windows.map((w) => `"${w.name}";q=${w.limit};w=${w.lengthSeconds}`);
  if (result.banSeconds !== undefined) policies.push(`"ban";q=0;w=${result.banSeconds}`);
  const reported = result.banSeconds === undefined ? window.name : "ban";
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": String(window.limit),
    "X-RateLimit-Remaining": String(remaining),
    "X-RateLimit-Reset": String(reset),
    "RateLimit-Policy": policies.join(", "),
    RateLimit: `"${reported}";r=${remaining};t=${Math.max(0, reset - nowSeconds)}`,
  };
  if (refused) headers["Retry-After"] = String(result.retryAfter);
  return headers;
}
