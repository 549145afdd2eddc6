import { runCommand } from "./args.ts";
import { createCommand } from "./key-create.ts";
import { listCommand } from "./key-list.ts";
import { planCommand } from "./key-plan.ts";
import { revokeCommand } from "./key-revoke.ts";
import { dispatch } from "./subcommands.ts";

const usage = `Usage: npm run key -- <subcommand> [options]

  create [--account EMAIL] [--plan PLAN [--per-minute N --per-day N]]
                          make a key; it is printed alone on the last line
  revoke <key>            refuse the key from its next request on
  plan <key> <plan>|account [--per-minute N --per-day N]
                          give the key limits of its own, or make it follow its account
  list --account EMAIL    the account's keys, newest first

Each talks to the running Worker's admin endpoint: the one \`npm start\` serves
unless --url URL or --env staging|production names another.
\`npm run key -- <subcommand> --help\` describes each one.`;

await runCommand(
  dispatch(usage, {
    create: createCommand,
    revoke: revokeCommand,
    plan: planCommand,
    list: listCommand,
  }),
);
