import type { z } from "@hono/zod-openapi";
import {
  AccountPlanBodySchema,
  type AccountPlanChangeSchema,
  EmailParamsSchema,
  type InviteSchema,
} from "../admin/admin.schemas.ts";
import { PlanSchema } from "../rate-limit/plans.ts";
import {
  limitOptions,
  limitsHelp,
  limitsOf,
  targetHelp,
  targetOptions,
  workerOf,
} from "./admin-client.ts";
import {
  checkArguments,
  dispatch,
  limitsText,
  minuteOf,
  parseCommand,
  runCommand,
} from "./command.ts";

const labels = { email: "<email>", plan: "<plan>", perMinute: "--per-minute", perDay: "--per-day" };

const planHelp = `Usage: npm run account -- plan <email> ${PlanSchema.options.join("|")} [options]

Moves the account to the plan. Every key of it that follows its account's
plan takes the new limits from its next request, and so do keys made later;
keys with limits of their own keep them.

${limitsHelp}
${targetHelp}`;

async function plan(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, { ...targetOptions, ...limitOptions }, [
    "email",
    "plan",
  ]);
  if (values.help) {
    console.log(planHelp);
    return 0;
  }
  const [email, plan] = positionals;
  const params = checkArguments(EmailParamsSchema, { email }, labels);
  const body = checkArguments(AccountPlanBodySchema, { plan, ...limitsOf(values) }, labels);
  const worker = workerOf(values);
  const { account, keysUpdated } = await worker.send<z.infer<typeof AccountPlanChangeSchema>>({
    method: "POST",
    path: `/accounts/${encodeURIComponent(params.email)}/plan`,
    body,
    notFound: `no account ${params.email}`,
  });
  console.log(
    `Moved ${account.email} at ${worker.origin} to ${limitsText(account)}; ${keysUpdated} of its keys took it.`,
  );
  return 0;
}

const inviteHelp = `Usage: npm run account -- invite <email> [options]

Prints a one-time link, valid for 24 hours, with which the account's owner
sets its password; the account is made (on Free) if it does not exist. A new
link replaces the account's earlier one. Send it to the owner only.

${targetHelp}`;

async function invite(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, targetOptions, ["email"]);
  if (values.help) {
    console.log(inviteHelp);
    return 0;
  }
  const { email } = checkArguments(EmailParamsSchema, { email: positionals[0] }, labels);
  const made = await workerOf(values).send<z.infer<typeof InviteSchema>>({
    method: "POST",
    path: `/accounts/${encodeURIComponent(email)}/invite`,
  });
  if (made.accountCreated) console.log(`Made the account ${made.account.email} (Free).`);
  console.log(
    `One-time link for ${made.account.email} to set its password, until ${minuteOf(made.expiresAt)}:`,
  );
  console.log(made.link);
  return 0;
}

const usage = `Usage: npm run account -- <subcommand> [options]

  plan <email> <plan> [--per-minute N --per-day N]
                          move the account and every key that follows it to the plan
  invite <email>          print a one-time link (24 h) that sets the account's password

Each talks to the running Worker's admin endpoint: the one \`npm start\` serves
unless --url URL or --env staging|production names another.
\`npm run account -- <subcommand> --help\` describes each one.`;

await runCommand(dispatch(usage, { plan, invite }));
