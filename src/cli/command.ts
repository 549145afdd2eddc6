import { type ParseArgsConfig, parseArgs } from "node:util";
import type { z } from "@hono/zod-openapi";

/**
 * What every command here shares: its arguments, its subcommands, its exit
 * code, and how times and limits read in its output.
 */

/** Bad arguments: the command prints `message` as one line and exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Runs a command's main and turns its outcome into the exit code: 2 for usage errors, 1 for others. */
export async function runCommand(main: (args: string[]) => Promise<number>): Promise<void> {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    const usage = error instanceof UsageError;
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`error: ${reason}${usage ? " (see --help)" : ""}`);
    process.exitCode = usage ? 2 : 1;
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** node:util parseArgs in strict mode, with its errors turned into one-line UsageErrors. */
function strictArgs<T extends Options>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    const firstLine = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
    throw new UsageError(firstLine.split(". To specify")[0] ?? firstLine);
  }
}

/** The options, and exactly the positionals `names` names (unless --help asks for the usage). */
export function parseCommand<T extends Options>(args: string[], options: T, names: string[] = []) {
  const parsed = strictArgs(args, options);
  const { positionals, values } = parsed;
  if ("help" in values && values.help === true) return parsed;
  if (positionals.length < names.length) {
    throw new UsageError(`missing <${names[positionals.length]}>`);
  }
  if (positionals.length > names.length) {
    throw new UsageError(`unexpected argument "${positionals[names.length]}"`);
  }
  return parsed;
}

/**
 * Arguments as the Worker's own schema for them takes them, checked here
 * before anything is sent, so a refusal changes nothing; the Worker checks
 * them again. `labels` says how the user wrote each field: `{ perDay: "--per-day" }`.
 */
export function checkArguments<S extends z.ZodType>(
  schema: S,
  value: unknown,
  labels: Record<string, string>,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = String(issue?.path[0] ?? "");
  throw new UsageError(`${labels[field] ?? field}: ${issue?.message}`);
}

export type Subcommand = (argv: string[]) => Promise<number>;

/** A command made of subcommands (`npm run key -- revoke …`): picks one, or prints the usage. */
export function dispatch(usage: string, subcommands: Record<string, Subcommand>): Subcommand {
  const names = Object.keys(subcommands).join(", ");
  return async ([name, ...rest]) => {
    if (name === "--help" || name === "-h" || name === "help") {
      console.log(usage);
      return 0;
    }
    if (name === undefined) throw new UsageError(`missing subcommand: ${names}`);
    const subcommand = Object.hasOwn(subcommands, name) ? subcommands[name] : undefined;
    if (!subcommand) throw new UsageError(`unknown subcommand "${name}"; use ${names}`);
    return subcommand(rest);
  };
}

/** "2026-11-22 14:05 UTC": to the minute, which is all an operator compares. */
export function minuteOf(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

const count = (n: number) => n.toLocaleString("en-US");

/** "pro (300/min, 10,000/day)". */
export function limitsText(limits: { plan: string; perMinute: number; perDay: number }): string {
  return `${limits.plan} (${count(limits.perMinute)}/min, ${count(limits.perDay)}/day)`;
}
