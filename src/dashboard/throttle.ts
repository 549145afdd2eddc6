import type { RateLimitClient } from "../rate-limit/rate-limit-client.ts";

/** Attempts a minute: per email guards one account, per IP guards against spraying many. */
const SIGN_IN_PER_ACCOUNT = { perMinute: 10 } as const;
const SIGN_IN_PER_IP = { perMinute: 30 } as const;
const SIGN_UP_PER_IP = { perMinute: 10 } as const;

export type ThrottleVerdict = { allowed: true } | { allowed: false; retryAfter: number };

async function verdictOf(
  hits: Promise<{ outcome: string; retryAfter?: number }>[],
): Promise<ThrottleVerdict> {
  const refused = (await Promise.all(hits)).filter((hit) => hit.outcome !== "allowed");
  if (refused.length === 0) return { allowed: true };
  return { allowed: false, retryAfter: Math.max(1, ...refused.map((hit) => hit.retryAfter ?? 60)) };
}

/** Counts one sign-in attempt against the account's and the IP's budgets. */
export function throttleSignIn(
  limiter: RateLimitClient,
  email: string,
  clientIp: string,
): Promise<ThrottleVerdict> {
  return verdictOf([
    limiter.hitNamed(`signin:${email}`, SIGN_IN_PER_ACCOUNT),
    limiter.hitNamed(`signin-ip:${clientIp}`, SIGN_IN_PER_IP),
  ]);
}

/** Counts one sign-up attempt against the IP's budget (each costs a password hash). */
export function throttleSignUp(
  limiter: RateLimitClient,
  clientIp: string,
): Promise<ThrottleVerdict> {
  return verdictOf([limiter.hitNamed(`signup-ip:${clientIp}`, SIGN_UP_PER_IP)]);
}
