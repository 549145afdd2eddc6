import type { Limits } from "../keys/key-record.ts";
import { keylessLimits } from "./plans.ts";
import type { HitResult, KeyPolicy, WindowReport } from "./rate-limit-types.ts";

/** The only way the rest of the Worker reaches the RateLimiter Durable Object. */
export interface RateLimitClient {
  hitKey(keyHash: string, policy: KeyPolicy): Promise<HitResult>;
  hitKeyless(clientIp: string): Promise<HitResult>;
  applyPolicy(keyHash: string, policy: KeyPolicy): Promise<void>;
  usage(keyHash: string, limits: Limits): Promise<WindowReport[]>;
  /** Counts one attempt against a named per-minute budget (e.g. `signin:<email>`), for throttling. */
  hitNamed(name: string, limits: Pick<Limits, "perMinute">): Promise<HitResult>;
}

export function rateLimitClient(namespace: Env["RATE_LIMITER"]): RateLimitClient {
  const stub = (name: string) => namespace.get(namespace.idFromName(name));
  return {
    hitKey: (keyHash, policy) => stub(`key:${keyHash}`).hitKey(policy),
    hitKeyless: (clientIp) => stub(`ip:${clientIp}`).hitKeyless(keylessLimits),
    applyPolicy: (keyHash, policy) => stub(`key:${keyHash}`).applyPolicy(policy),
    usage: (keyHash, limits) => stub(`key:${keyHash}`).usage(limits),
    hitNamed: (name, limits) => stub(`named:${name}`).hitKeyless(limits),
  };
}
