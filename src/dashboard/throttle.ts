import type { RateLimitClient } from "../rate-limit/rate-limit-client.ts";
import type { Budget } from "../rate-limit/rate-limit-types.ts";

/**
 * Sign-in attempts are counted per email and address together, so failures
 * from one address never lock out the owner signing in from another, and per
 * address, so one address cannot spray many accounts. Each sign-up costs a
 * password hash and makes an account, so it is counted per address by the hour.
 */
const SIGN_IN_PER_EMAIL_AND_ADDRESS: Budget = { limit: 10, per: "minute" };
const SIGN_IN_PER_ADDRESS: Budget = { limit: 30, per: "minute" };
const SIGN_UP_PER_ADDRESS: Budget = { limit: 10, per: "hour" };

export type ThrottleVerdict = { allowed: true } | { allowed: false; retryAfter: number };

async function verdictOf(
  hits: Promise<{ outcome: string; retryAfter?: number }>[],
): Promise<ThrottleVerdict> {
  const refused = (await Promise.all(hits)).filter((hit) => hit.outcome !== "allowed");
  if (refused.length === 0) return { allowed: true };
  return { allowed: false, retryAfter: Math.max(1, ...refused.map((hit) => hit.retryAfter ?? 60)) };
}

/** Counts one sign-in attempt against the email-and-address budget and the address's. */
export function throttleSignIn(
  limiter: RateLimitClient,
  email: string,
  address: string,
): Promise<ThrottleVerdict> {
  return verdictOf([
    limiter.hitNamed(`signin:${JSON.stringify([email, address])}`, SIGN_IN_PER_EMAIL_AND_ADDRESS),
    limiter.hitNamed(`signin-ip:${address}`, SIGN_IN_PER_ADDRESS),
  ]);
}

/** Counts one sign-up attempt against the address's hourly budget. */
export function throttleSignUp(
  limiter: RateLimitClient,
  address: string,
): Promise<ThrottleVerdict> {
  return verdictOf([limiter.hitNamed(`signup-ip:${address}`, SIGN_UP_PER_ADDRESS)]);
}
