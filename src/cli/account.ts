import { inviteCommand } from "./account-invite.ts";
import { accountPlanCommand } from "./account-plan.ts";
import { runCommand } from "./args.ts";
import { dispatch } from "./subcommands.ts";

const usage = `Usage: npm run account -- <subcommand> [options]

  plan <email> <plan> [--per-minute N --per-day N]
                          move the account and every key that follows it to the plan
  invite <email>          print a one-time link (24 h) that sets the account's password

Each talks to the running Worker's admin endpoint: the one \`npm start\` serves
unless --url URL or --env staging|production names another.
\`npm run account -- <subcommand> --help\` describes each one.`;

await runCommand(dispatch(usage, { plan: accountPlanCommand, invite: inviteCommand }));
