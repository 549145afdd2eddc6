import { generateApiKey, hashApiKey, lastFourOf } from "../keys/key-format.ts";
import type { KeyRecord } from "../keys/key-record.ts";
import { expectPositionals, parseCommand, parseLimits, parsePlan, UsageError } from "./args.ts";
import { locationHelp, locationOf, locationOptions } from "./key-location.ts";
import { writeKeyRecord } from "./kv.ts";
import { environmentSettings } from "./project.ts";

export const createHelp = `Usage: npm run key -- create --plan free|pro|business|enterprise [options]

Makes a new API key, stores its record (by SHA-256 hash only) in KV and prints
the key alone on the last line. It is shown this once.

  --plan PLAN               free, pro, business or enterprise (required)
  --per-minute N            enterprise only, required there: requests per minute
  --per-day N               enterprise only, required there: requests per day
  --account EMAIL           the account the key belongs to (default operator@localhost)
${locationHelp}`;

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export async function createCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    ...locationOptions,
    plan: { type: "string" },
    "per-minute": { type: "string" },
    "per-day": { type: "string" },
    account: { type: "string" },
  });
  if (values.help) {
    console.log(createHelp);
    return 0;
  }
  expectPositionals(positionals, []);
  if (values.plan === undefined) throw new UsageError("--plan is required");
  const plan = parsePlan(values.plan);
  const limits = parseLimits(plan, values["per-minute"], values["per-day"]);
  const account = values.account ?? "operator@localhost";
  if (!EMAIL.test(account)) throw new UsageError(`--account must be an email, got "${account}"`);
  const location = locationOf(values);

  const { keyPrefix } = await environmentSettings(location.target.root, location.env);
  const key = generateApiKey(keyPrefix);
  const hash = await hashApiKey(key);
  const record: KeyRecord = {
    account,
    plan,
    ...(limits ? { limits } : {}),
    createdAt: new Date().toISOString(),
    revoked: false,
    lastFour: lastFourOf(key),
    version: Date.now(),
  };
  await writeKeyRecord(location.target, hash, record);
  console.log(
    `Created a ${plan} key for ${account} in ${location.label} (ends in ${record.lastFour}).`,
  );
  console.log("This is the only time the key is shown; only its SHA-256 is stored:");
  console.log(key);
  return 0;
}
