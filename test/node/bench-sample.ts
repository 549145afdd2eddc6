import type { Sample } from "../bench/measure.ts";

/** One first-round load of a target at this rate, beside an endpoint when it is that one's floor. */
export function sample(target: string, requestsPerSecond: number, besideEndpoint?: string): Sample {
  return {
    target,
    round: 1,
    requestsPerSecond,
    p50Ms: 10,
    p99Ms: 20,
    requests: 1_000,
    unexpected: 0,
    errors: 0,
    timeouts: 0,
    ...(besideEndpoint ? { besideEndpoint } : {}),
  };
}
