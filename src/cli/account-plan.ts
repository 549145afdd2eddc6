import type { AccountSummary } from "../admin/admin.schemas.ts";
import { expectPositionals, PLANS, parseCommand, parseLimits, parsePlan } from "./args.ts";
import { limitsText } from "./describe.ts";
import { projectRoot } from "./project.ts";
import { connect, targetHelp, targetOf, targetOptions } from "./worker-target.ts";

export const accountPlanHelp = `Usage: npm run account -- plan <email> ${PLANS.join("|")} [options]

Moves the account to the plan. Every key of it that follows its account's
plan takes the new limits from its next request, and so do keys made later;
keys with limits of their own keep them.

  --per-minute N            enterprise only, required there: requests per minute
  --per-day N               enterprise only, required there: requests per day
${targetHelp}`;

interface AccountPlanChange {
  account: AccountSummary;
  keysUpdated: number;
}

export async function accountPlanCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    ...targetOptions,
    "per-minute": { type: "string" },
    "per-day": { type: "string" },
  });
  if (values.help) {
    console.log(accountPlanHelp);
    return 0;
  }
  const [email = "", planName = ""] = expectPositionals(positionals, ["email", "plan"]);
  const plan = parsePlan(planName);
  const limits = parseLimits(plan, values["per-minute"], values["per-day"]);
  const worker = await connect(targetOf(values), projectRoot());

  const { account, keysUpdated } = await worker.call<AccountPlanChange>({
    method: "POST",
    path: `/admin/accounts/${encodeURIComponent(email)}/plan`,
    body: { plan, ...limits },
    notFound: `no account ${email}`,
  });
  console.log(
    `Moved ${account.email} at ${worker.origin} to ${limitsText(account)}; ${keysUpdated} of its keys took it.`,
  );
  return 0;
}
