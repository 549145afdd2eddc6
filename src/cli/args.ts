import { type ParseArgsConfig, parseArgs } from "node:util";
import { isWellFormedKey } from "../keys/key-format.ts";
import type { Limits, Plan } from "../rate-limit/plans.ts";

export const PLANS = ["free", "pro", "business", "enterprise"] as const satisfies readonly Plan[];
export type PlanName = (typeof PLANS)[number];

/** What `key plan` accepts besides a plan: the key follows its account's plan again. */
export const FOLLOW_ACCOUNT = "account";

export const ENVIRONMENTS = ["staging", "production"] as const;
export type RemoteEnvironment = (typeof ENVIRONMENTS)[number];

/** Bad arguments: the command prints `message` as one line and exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Runs a command's main and turns its outcome into the exit code: 2 for usage errors, 1 for others. */
export async function runCommand(main: (args: string[]) => Promise<number>): Promise<void> {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`error: ${error.message} (see --help)`);
      process.exitCode = 2;
    } else {
      console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    }
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** node:util parseArgs in strict mode, with its errors turned into one-line UsageErrors. */
export function parseCommand<T extends Options>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const firstLine = message.split("\n")[0] ?? message;
    throw new UsageError(firstLine.split(". To specify")[0] ?? firstLine);
  }
}

export function parsePlan(value: string): PlanName {
  const plan = PLANS.find((name) => name === value);
  if (!plan) throw new UsageError(`unknown plan "${value}"; use one of ${PLANS.join(", ")}`);
  return plan;
}

/** A plan, or `account` to follow the account's plan. */
export function parseKeyPlan(value: string): PlanName | typeof FOLLOW_ACCOUNT {
  if (value === FOLLOW_ACCOUNT) return FOLLOW_ACCOUNT;
  const plan = PLANS.find((name) => name === value);
  if (!plan) {
    throw new UsageError(`unknown plan "${value}"; use one of ${PLANS.join(", ")} or account`);
  }
  return plan;
}

export function parseEnvironment(value: string | undefined): RemoteEnvironment | undefined {
  if (value === undefined) return undefined;
  const env = ENVIRONMENTS.find((name) => name === value);
  if (!env) throw new UsageError(`unknown --env "${value}"; use staging or production`);
  return env;
}

export function parseKey(value: string): string {
  if (!isWellFormedKey(value)) {
    throw new UsageError(
      "not a well-formed API key (ps_live_ or ps_test_ then 32 letters and digits)",
    );
  }
  return value;
}

export function parsePositiveInt(name: string, value: string): number {
  const parsed = /^[1-9][0-9]{0,14}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed)) {
    throw new UsageError(`--${name} must be a positive whole number, got "${value}"`);
  }
  return parsed;
}

/**
 * Enterprise carries its own numbers, both of them; no other plan (nor a key
 * that follows its account) takes any.
 */
export function parseLimits(
  plan: string | undefined,
  perMinute: string | undefined,
  perDay: string | undefined,
): Limits | undefined {
  if (plan !== "enterprise") {
    if (perMinute !== undefined || perDay !== undefined) {
      throw new UsageError(
        plan === undefined
          ? "--per-minute and --per-day need --plan enterprise"
          : `--per-minute and --per-day are only for enterprise, not ${plan}`,
      );
    }
    return undefined;
  }
  if (perMinute === undefined || perDay === undefined) {
    throw new UsageError("enterprise needs both --per-minute N and --per-day N");
  }
  const limits = {
    perMinute: parsePositiveInt("per-minute", perMinute),
    perDay: parsePositiveInt("per-day", perDay),
  };
  if (limits.perMinute > limits.perDay) {
    throw new UsageError("--per-minute cannot be larger than --per-day");
  }
  return limits;
}

export function parsePort(value: string): number {
  const port = /^[0-9]{1,5}$/.test(value) ? Number(value) : 0;
  if (port < 1 || port > 65_535) throw new UsageError(`--port must be 1–65535, got "${value}"`);
  return port;
}

/** Exactly `names.length` positionals, named in the message when some are missing or extra. */
export function expectPositionals(positionals: string[], names: string[]): string[] {
  if (positionals.length < names.length) {
    throw new UsageError(`missing <${names[positionals.length]}>`);
  }
  if (positionals.length > names.length) {
    throw new UsageError(`unexpected argument "${positionals[names.length]}"`);
  }
  return positionals;
}
