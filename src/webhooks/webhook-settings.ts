import type { WebhookUrlPolicy } from "./webhook-url.ts";

/** How deliveries are made in this environment: wrangler.toml variables, which tests shorten. */
export interface WebhookSettings {
  urlPolicy: WebhookUrlPolicy;
  /** Seconds to wait before each retry, in order; once all are spent, the delivery has failed. */
  retryDelaysSeconds: readonly number[];
  /** How long a receiver has to answer one attempt. */
  timeoutMs: number;
  /** An endpoint with no successful attempt since a failure this old is disabled. */
  disableAfterMs: number;
}

function configurationError(name: string, value: string): Error {
  return new Error(`configuration: ${name} is not valid (${JSON.stringify(value)})`);
}

/** A non-negative number of seconds; fractions let tests run the schedule without real waits. */
function isSeconds(value: number): boolean {
  return Number.isFinite(value) && value >= 0;
}

function retryDelays(value: string): number[] {
  const delays = value.split(",").map((part) => Number(part.trim()));
  if (value.trim() === "" || !delays.every(isSeconds)) {
    throw configurationError("WEBHOOK_RETRY_DELAYS", value);
  }
  return delays;
}

function timeout(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) throw configurationError("WEBHOOK_TIMEOUT_MS", value);
  return ms;
}

function disableAfter(value: string): number {
  const seconds = Number(value);
  if (value.trim() === "" || !isSeconds(seconds)) {
    throw configurationError("WEBHOOK_DISABLE_AFTER_SECONDS", value);
  }
  return seconds * 1000;
}

/** Whether this environment lets endpoints be `http://127.0.0.1` (local development only). */
export function webhookUrlPolicy(env: { WEBHOOK_ALLOW_LOOPBACK_HTTP?: string }): WebhookUrlPolicy {
  return { allowLoopbackHttp: env.WEBHOOK_ALLOW_LOOPBACK_HTTP === "true" };
}

/** The settings the environment's variables describe; a malformed variable is a configuration error. */
export function webhookSettings(env: {
  WEBHOOK_RETRY_DELAYS: string;
  WEBHOOK_TIMEOUT_MS: string;
  WEBHOOK_ALLOW_LOOPBACK_HTTP: string;
  WEBHOOK_DISABLE_AFTER_SECONDS: string;
}): WebhookSettings {
  return {
    urlPolicy: webhookUrlPolicy(env),
    retryDelaysSeconds: retryDelays(env.WEBHOOK_RETRY_DELAYS),
    timeoutMs: timeout(env.WEBHOOK_TIMEOUT_MS),
    disableAfterMs: disableAfter(env.WEBHOOK_DISABLE_AFTER_SECONDS),
  };
}
