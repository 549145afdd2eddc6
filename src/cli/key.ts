import { runCommand, UsageError } from "./args.ts";
import { createCommand } from "./key-create.ts";
import { planCommand } from "./key-plan.ts";
import { revokeCommand } from "./key-revoke.ts";

const usage = `Usage: npm run key -- <subcommand> [options]

  create --plan PLAN [--per-minute N --per-day N] [--account EMAIL] [--env staging|production]
  revoke <key>
  plan <key> <plan> [--per-minute N --per-day N]

Works on local state (what \`npm start\` serves) unless --env is given.
\`npm run key -- <subcommand> --help\` describes each one.`;

const subcommands: Record<string, (argv: string[]) => Promise<number>> = {
  create: createCommand,
  revoke: revokeCommand,
  plan: planCommand,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--help" || name === "-h" || name === "help") {
    console.log(usage);
    return 0;
  }
  if (name === undefined) throw new UsageError("missing subcommand: create, revoke or plan");
  const command = Object.hasOwn(subcommands, name) ? subcommands[name] : undefined;
  if (!command) throw new UsageError(`unknown subcommand "${name}"; use create, revoke or plan`);
  return command(rest);
}

await runCommand(main);
