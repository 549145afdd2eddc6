import { z } from "@hono/zod-openapi";
import type { WebhookUrlPolicy } from "../webhook-urls/webhook-url.ts";

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

// Fractions of a second let the tests run the whole schedule without real waits.
const DELAYS_RULE = "must be seconds of 0 or more, separated by commas";
const SECONDS_RULE = "must be seconds of 0 or more";

const seconds = (rule: string) =>
  z.number(rule).refine((value) => Number.isFinite(value) && value >= 0, rule);

/** The variables behind the settings, as part of the configuration's schema. */
export const webhookVariables = {
  /** Comma-separated seconds, e.g. `30,120,600`. */
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .transform((value) => value.split(",").map((part) => (part.trim() ? Number(part) : Number.NaN)))
    .pipe(z.array(seconds(DELAYS_RULE))),
  WEBHOOK_TIMEOUT_MS: z
    .string()
    .transform(Number)
    .pipe(z.int("must be whole milliseconds").min(1, "must be at least 1 millisecond")),
  /** Seconds an endpoint may fail with no success before the service disables it. */
  WEBHOOK_DISABLE_AFTER_SECONDS: z
    .string()
    .transform((value) => (value.trim() ? Number(value) : Number.NaN))
    .pipe(seconds(SECONDS_RULE)),
  /** Local development and tests only: endpoints at `http://127.0.0.1`. */
  WEBHOOK_ALLOW_LOOPBACK_HTTP: z.enum(["true", "false"]).optional(),
};

type WebhookVariables = z.output<z.ZodObject<typeof webhookVariables>>;

/** The settings the (already validated) variables describe. */
export function webhookSettings(variables: WebhookVariables): WebhookSettings {
  return {
    urlPolicy: { allowLoopbackHttp: variables.WEBHOOK_ALLOW_LOOPBACK_HTTP === "true" },
    retryDelaysSeconds: variables.WEBHOOK_RETRY_DELAYS,
    timeoutMs: variables.WEBHOOK_TIMEOUT_MS,
    disableAfterMs: variables.WEBHOOK_DISABLE_AFTER_SECONDS * 1000,
  };
}
