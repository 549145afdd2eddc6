import type { KeySummary } from "../admin/admin.schemas.ts";
import { expectPositionals, PLANS, parseCommand, parseLimits, parsePlan } from "./args.ts";
import { keyLimitsText } from "./describe.ts";
import { projectRoot } from "./project.ts";
import { connect, targetHelp, targetOf, targetOptions } from "./worker-target.ts";

export const createHelp = `Usage: npm run key -- create [--account EMAIL] [--plan PLAN [--per-minute N --per-day N]] [options]

Makes a new API key and prints it alone on the last line. It is shown this
once: the Worker stores only its SHA-256.

  --account EMAIL           the account the key belongs to, made (on Free, with no password)
                            if missing; default: the environment's operator account
  --plan PLAN               ${PLANS.join(", ")}: limits of the key's own; without
                            it the key follows its account's plan
  --per-minute N            enterprise only, required there: requests per minute
  --per-day N               enterprise only, required there: requests per day
${targetHelp}`;

interface CreatedKey extends KeySummary {
  key: string;
  accountCreated: boolean;
}

export async function createCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    ...targetOptions,
    account: { type: "string" },
    plan: { type: "string" },
    "per-minute": { type: "string" },
    "per-day": { type: "string" },
  });
  if (values.help) {
    console.log(createHelp);
    return 0;
  }
  expectPositionals(positionals, []);
  const account = values.account;
  const plan = values.plan === undefined ? undefined : parsePlan(values.plan);
  const limits = parseLimits(plan, values["per-minute"], values["per-day"]);
  const worker = await connect(targetOf(values), projectRoot());

  const created = await worker.call<CreatedKey>({
    method: "POST",
    path: "/admin/keys",
    body: { account, plan, ...limits },
  });
  if (created.accountCreated) {
    console.log(
      `Made the account ${created.account} (no password yet: \`npm run account -- invite ${created.account}\`).`,
    );
  }
  console.log(
    `Made a key for ${created.account} at ${worker.origin}: ${keyLimitsText(created)}, ends in ${created.lastFour}.`,
  );
  console.log("This is the only time the key is shown; only its SHA-256 is stored:");
  console.log(created.key);
  return 0;
}
