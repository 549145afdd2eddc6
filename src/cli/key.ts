import type { z } from "@hono/zod-openapi";
import {
  type AccountKeysSchema,
  AccountQuerySchema,
  type AccountSummary,
  type CreatedKeySchema,
  CreateKeyBodySchema,
  KeyPlanBodySchema,
  type KeySummary,
} from "../admin/admin.schemas.ts";
import { hashApiKey, isWellFormedKey } from "../keys/key-format.ts";
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
  UsageError,
} from "./command.ts";

const PLANS = PlanSchema.options.join("|");

const labels = {
  account: "--account",
  plan: "--plan",
  perMinute: "--per-minute",
  perDay: "--per-day",
};

/** Only the key's SHA-256 travels; a value that cannot be a key is refused before that. */
async function hashOf(key: string): Promise<string> {
  if (!isWellFormedKey(key)) {
    throw new UsageError(
      "not a well-formed API key (ps_live_ or ps_test_ then 32 letters and digits)",
    );
  }
  return hashApiKey(key);
}

/** "pro (300/min, 10,000/day) of its own" or "… from its account". */
function keyLimitsText(key: KeySummary): string {
  return `${limitsText(key)} ${key.limitsFrom === "key" ? "of its own" : "from its account"}`;
}

const keyName = (key: KeySummary) => `key ending in ${key.lastFour} (${key.account})`;

const createHelp = `Usage: npm run key -- create [--account EMAIL] [--plan PLAN [--per-minute N --per-day N]] [options]

Makes a new API key and prints it alone on the last line. It is shown this
once: the Worker stores only its SHA-256.

  --account EMAIL           the account the key belongs to, made (on Free, with no password)
                            if missing; default: the environment's operator account
  --plan PLAN               ${PLANS}: limits of the key's own; without
                            it the key follows its account's plan
${limitsHelp}
${targetHelp}`;

async function create(argv: string[]): Promise<number> {
  const { values } = parseCommand(argv, {
    ...targetOptions,
    ...limitOptions,
    account: { type: "string" },
    plan: { type: "string" },
  });
  if (values.help) {
    console.log(createHelp);
    return 0;
  }
  const body = checkArguments(
    CreateKeyBodySchema,
    { account: values.account, plan: values.plan, ...limitsOf(values) },
    labels,
  );
  const worker = workerOf(values);
  const created = await worker.send<z.infer<typeof CreatedKeySchema>>({
    method: "POST",
    path: "/keys",
    body,
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

const revokeHelp = `Usage: npm run key -- revoke <key> [options]

Revokes the key for good: the very next request with it gets 401. Only the
key's SHA-256 is sent. Revoking a revoked key again changes nothing.

${targetHelp}`;

async function revoke(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, targetOptions, ["key"]);
  if (values.help) {
    console.log(revokeHelp);
    return 0;
  }
  const hash = await hashOf(positionals[0] ?? "");
  const worker = workerOf(values);
  const revoked = await worker.send<KeySummary>({
    method: "POST",
    path: `/keys/${hash}/revoke`,
    notFound: "no key has this value",
  });
  console.log(`Revoked the ${keyName(revoked)} at ${worker.origin}: its next request gets 401.`);
  return 0;
}

const planHelp = `Usage: npm run key -- plan <key> ${PLANS}|account [options]

Gives the key limits of its own, which win over its account's plan, or with
\`account\` makes it follow its account's plan again. Applies from the key's
next request. Only the key's SHA-256 is sent.

${limitsHelp}
${targetHelp}`;

async function plan(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, { ...targetOptions, ...limitOptions }, [
    "key",
    "plan",
  ]);
  if (values.help) {
    console.log(planHelp);
    return 0;
  }
  const [key = "", plan] = positionals;
  const hash = await hashOf(key);
  const body = checkArguments(
    KeyPlanBodySchema,
    { plan, ...limitsOf(values) },
    { ...labels, plan: "<plan>" },
  );
  const worker = workerOf(values);
  const changed = await worker.send<KeySummary>({
    method: "POST",
    path: `/keys/${hash}/plan`,
    body,
    notFound: "no key has this value",
  });
  console.log(
    `The ${keyName(changed)} at ${worker.origin} now has ${keyLimitsText(changed)}, from its next request.`,
  );
  return 0;
}

const listHelp = `Usage: npm run key -- list --account EMAIL [options]

Shows the account's plan and its keys, newest first: last four characters,
when it was made, status, limits and whether they come from the account's
plan or the key's own. Keys themselves are never stored, so never shown.

  --account EMAIL           whose keys (required)
${targetHelp}`;

function statusText(key: KeySummary): string {
  if (key.status === "revoked" && key.revokedAt) return `revoked ${minuteOf(key.revokedAt)}`;
  if (key.status === "rolled" && key.expiresAt) {
    return `rolled, works until ${minuteOf(key.expiresAt)}`;
  }
  return key.status;
}

function accountText(account: AccountSummary): string {
  const password = account.hasPassword ? "password set" : "no password yet";
  return `${account.email}: ${limitsText(account)}, ${password}, since ${minuteOf(account.createdAt)}`;
}

/** Columns padded to their widest cell, two spaces apart. */
function formatTable(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? "").length)),
  );
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const HEADER = ["KEY", "CREATED", "STATUS", "PLAN", "PER MINUTE", "PER DAY", "LIMITS FROM"];

const rowOf = (key: KeySummary) => [
  `…${key.lastFour}`,
  minuteOf(key.createdAt),
  statusText(key),
  key.plan,
  String(key.perMinute),
  String(key.perDay),
  key.limitsFrom,
];

async function list(argv: string[]): Promise<number> {
  const { values } = parseCommand(argv, { ...targetOptions, account: { type: "string" } });
  if (values.help) {
    console.log(listHelp);
    return 0;
  }
  if (values.account === undefined) throw new UsageError("--account EMAIL is required");
  const query = checkArguments(AccountQuerySchema, { account: values.account }, labels);
  const { account, keys } = await workerOf(values).send<z.infer<typeof AccountKeysSchema>>({
    method: "GET",
    path: `/keys?${new URLSearchParams(query)}`,
    notFound: `no account ${query.account}`,
  });
  console.log(accountText(account));
  console.log(keys.length === 0 ? "No keys." : formatTable([HEADER, ...keys.map(rowOf)]));
  return 0;
}

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

await runCommand(dispatch(usage, { create, revoke, plan, list }));
