/**
 * The environment's variables and secrets (wrangler.toml `vars`, `wrangler
 * secret`, .dev.vars), read by one schema into the typed configuration the
 * services carry. Nothing else reads the environment. `npm run openapi`
 * imports this under Node's type stripping, hence erasable syntax only.
 */
import { z } from "@hono/zod-openapi";
import { AccountEmailSchema } from "./accounts/account-email.ts";
import { log } from "./logging.ts";
import { webhookSettings, webhookVariables } from "./webhooks/webhook-settings.ts";

export type Config = ReturnType<typeof parseConfig>;

/** Shorter secrets could be guessed through the public endpoints that check them. */
const MIN_SECRET_LENGTH = 32;

const instant = z.iso.datetime({ offset: true }).transform((value) => Date.parse(value));
const publicUrl = z.url({ protocol: /^https?$/ });
/** A scheme and host (and port), nothing after them: `https://api.petstore.example.com`. */
const origin = publicUrl.refine(
  (url) => new URL(url).origin === url,
  "Must be an origin: a scheme and a host, without a path or a trailing slash",
);

const variables = z.object({
  KEY_PREFIX: z.enum(["ps_live_", "ps_test_"]),
  LOG_LEVEL: z.enum(["info", "warn"]),
  OPERATOR_EMAIL: AccountEmailSchema,
  PRODUCTION_URL: publicUrl,
  STAGING_URL: publicUrl,
  PUBLIC_ORIGIN: origin.optional(),
  GET_PET_DEPRECATED_AT: instant,
  GET_PET_SUNSET_AT: instant,
  ...webhookVariables,
  ADMIN_TOKEN: z.string().optional(),
  SESSION_SECRET: z.string().optional(),
  CONSISTENCY_TOKEN_SECRET: z.string().optional(),
  CONSISTENCY_TOKEN_PREVIOUS_SECRET: z.string().optional(),
});

/** A configuration the API cannot run with: which variables, and what is wrong with each. */
export class ConfigurationError extends Error {
  readonly variables: string[];

  constructor(problems: readonly { variable: string; problem: string }[]) {
    super(
      `configuration is not valid: ${problems.map(({ variable, problem }) => `${variable}: ${problem}`).join("; ")}`,
    );
    this.name = "ConfigurationError";
    this.variables = [...new Set(problems.map(({ variable }) => variable))];
  }
}

/**
 * An optional secret: a missing or short one switches its own feature off
 * instead of stopping the API; a short one is logged, once per isolate.
 */
function usableSecret(name: string, feature: string, value: string | undefined) {
  if (value && value.length >= MIN_SECRET_LENGTH) return value;
  if (value)
    log("error", `${name} is shorter than ${MIN_SECRET_LENGTH} characters; ${feature} off`);
  return undefined;
}

/**
 * The keys of `Consistency-Token`s: the secret that seals them, then, during
 * a rotation, the one before it, whose tokens are still opened. Undefined
 * when the secret is unset or too short: replies then carry no token, and a
 * token sent is refused, since none can be told from a forgery.
 */
function tokenSecrets(
  env: z.infer<typeof variables>,
): readonly [current: string, ...previous: string[]] | undefined {
  const current = usableSecret(
    "CONSISTENCY_TOKEN_SECRET",
    "Consistency-Token is",
    env.CONSISTENCY_TOKEN_SECRET,
  );
  if (current === undefined) return undefined;
  const previous = usableSecret(
    "CONSISTENCY_TOKEN_PREVIOUS_SECRET",
    "opening the previous secret's tokens is",
    env.CONSISTENCY_TOKEN_PREVIOUS_SECRET,
  );
  return previous === undefined ? [current] : [current, previous];
}

/**
 * The configuration in `source` (the Worker's env, or wrangler.toml's vars for
 * an environment); a missing or malformed required variable throws a
 * ConfigurationError naming it. Values are never echoed: some are secrets.
 */
export function parseConfig(source: object) {
  const parsed = variables.safeParse(source);
  if (!parsed.success) {
    throw new ConfigurationError(
      parsed.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? "(environment)"),
        problem: issue.message,
      })),
    );
  }
  const env = parsed.data;
  return {
    /** `ps_live_` in production, `ps_test_` everywhere else. */
    keyPrefix: env.KEY_PREFIX,
    /** `warn` leaves out the log line of every request that succeeded or failed below 500. */
    logLevel: env.LOG_LEVEL,
    /** The account that owns keys an operator makes without naming one. */
    operatorEmail: env.OPERATOR_EMAIL,
    /** The public base URLs (ending in `/v1`) the OpenAPI document lists as its servers. */
    publicUrls: { production: env.PRODUCTION_URL, staging: env.STAGING_URL },
    /** Where this environment is reached, which photos' addresses start with; unset locally, where each upload's own origin is used. */
    publicOrigin: env.PUBLIC_ORIGIN,
    /** When each deprecated operation (by operationId) was deprecated and is removed, in Unix ms. */
    deprecations: {
      getPet: { deprecatedAt: env.GET_PET_DEPRECATED_AT, sunsetAt: env.GET_PET_SUNSET_AT },
    },
    webhooks: webhookSettings(env),
    /** Undefined when unset or too short, and then the operator routes do not exist. */
    adminToken: usableSecret("ADMIN_TOKEN", "the operator endpoints are", env.ADMIN_TOKEN),
    /** The key of the dashboard's CSRF tokens; undefined when unset or too short, and its forms fail. */
    sessionSecret: usableSecret("SESSION_SECRET", "the dashboard's forms are", env.SESSION_SECRET),
    consistencyTokens: tokenSecrets(env),
  };
}
