import type { KeySummary } from "../admin/admin.schemas.ts";
import { hashApiKey } from "../keys/key-format.ts";
import {
  expectPositionals,
  PLANS,
  parseCommand,
  parseKey,
  parseKeyPlan,
  parseLimits,
} from "./args.ts";
import { keyLimitsText, keyName } from "./describe.ts";
import { projectRoot } from "./project.ts";
import { connect, targetHelp, targetOf, targetOptions } from "./worker-target.ts";

export const planHelp = `Usage: npm run key -- plan <key> ${PLANS.join("|")}|account [options]

Gives the key limits of its own, which win over its account's plan, or with
\`account\` makes it follow its account's plan again. Applies from the key's
next request. Only the key's SHA-256 is sent.

  --per-minute N            enterprise only, required there: requests per minute
  --per-day N               enterprise only, required there: requests per day
${targetHelp}`;

export async function planCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    ...targetOptions,
    "per-minute": { type: "string" },
    "per-day": { type: "string" },
  });
  if (values.help) {
    console.log(planHelp);
    return 0;
  }
  const [key = "", planName = ""] = expectPositionals(positionals, ["key", "plan"]);
  const hash = await hashApiKey(parseKey(key));
  const plan = parseKeyPlan(planName);
  const limits = parseLimits(plan, values["per-minute"], values["per-day"]);
  const worker = await connect(targetOf(values), projectRoot());

  const changed = await worker.call<KeySummary>({
    method: "POST",
    path: `/admin/keys/${hash}/plan`,
    body: { plan, ...limits },
    notFound: "no key has this value",
  });
  console.log(
    `The ${keyName(changed)} at ${worker.origin} now has ${keyLimitsText(changed)}, from its next request.`,
  );
  return 0;
}
