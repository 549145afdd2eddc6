import { expectPositionals, parseCommand, parseLimits, parsePlan } from "./args.ts";
import { locationHelp, locationOf, locationOptions } from "./key-location.ts";
import { notifyHelp, updateKey } from "./key-update.ts";

export const planHelp = `Usage: npm run key -- plan <key> free|pro|business|enterprise [options]

Moves the key to another plan. The running Worker is told, so the new limits
apply from the next request.

  --per-minute N            enterprise only, required there: requests per minute
  --per-day N               enterprise only, required there: requests per day
${notifyHelp}
${locationHelp}`;

export async function planCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    ...locationOptions,
    url: { type: "string" },
    "per-minute": { type: "string" },
    "per-day": { type: "string" },
  });
  if (values.help) {
    console.log(planHelp);
    return 0;
  }
  const [key = "", planName = ""] = expectPositionals(positionals, ["key", "plan"]);
  const plan = parsePlan(planName);
  const limits = parseLimits(plan, values["per-minute"], values["per-day"]);
  return updateKey({
    key,
    location: locationOf(values),
    url: values.url,
    change: ({ limits: _old, ...record }) => ({ ...record, plan, ...(limits ? { limits } : {}) }),
    done: `Moved to ${plan}`,
  });
}
