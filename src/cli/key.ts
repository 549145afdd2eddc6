import type { z } from "@hono/zod-openapi";
import {
  type AccountKeysSchema,
  AccountQuerySchema,
  type CreatedKeySchema,
  CreateKeyBodySchema,
  KeyPlanBodySchema,
  type KeySummary,
} from "../admin/admin.schemas.ts";
import { hashApiKey, isWellFormedKey } from "../keys/key-format.ts";
import { PlanSchema } from "../rate-limit/plans.ts";
import {
  checkArguments,
  limitOptions,
  limitsHelp,
  limitsOf,
  limitsText,
  minuteOf,
  runOperatorCommand,
  subcommand,
} from "./admin-client.ts";
import { UsageError } from "./command.ts";

/** Only the key's SHA-256 travels; a value that cannot be a key is refused before that. */
async function hashOf(key = ""): Promise<string> {
  if (!isWellFormedKey(key)) {
    throw new UsageError(
      "not a well-formed API key (ps_live_ or ps_test_ then 32 letters and digits)",
    );
  }
  return hashApiKey(key);
}

/** "pro (300/min, 10,000/day) of its own" or "… from its account". */
const keyLimitsText = (key: KeySummary) =>
  `${limitsText(key)} ${key.limitsFrom === "key" ? "of its own" : "from its account"}`;

const NO_SUCH_KEY = "no key has this value";

const keyName = (key: KeySummary) => `key ending in ${key.lastFour} (${key.account})`;

const create = subcommand({
  synopsis: "[--account EMAIL] [--plan PLAN [--per-minute N --per-day N]]",
  summary: "make a key; it is printed alone on the last line",
  help: `Makes a new API key and prints it alone on the last line. It is shown this
once: the Worker stores only its SHA-256.

  --account EMAIL           the account the key belongs to, made (on Free, with no password)
                            if missing; default: the environment's operator account
  --plan PLAN               ${PlanSchema.options.join("|")}: limits of the key's own; without
                            it the key follows its account's plan
${limitsHelp}`,
  options: { ...limitOptions, account: { type: "string" }, plan: { type: "string" } },
  async run(values, _, worker) {
    const { account, plan } = values;
    const body = checkArguments(CreateKeyBodySchema, { account, plan, ...limitsOf(values) });
    type Made = z.infer<typeof CreatedKeySchema>;
    const made = await worker.send<Made>("POST", "/keys", { body });
    if (made.accountCreated) {
      console.log(
        `Made the account ${made.account} (no password yet: \`npm run account -- invite ${made.account}\`).`,
      );
    }
    console.log(
      `Made a key for ${made.account} at ${worker.origin}: ${keyLimitsText(made)}, ends in ${made.lastFour}.`,
    );
    console.log("This is the only time the key is shown; only its SHA-256 is stored:");
    console.log(made.key);
  },
});

const revoke = subcommand({
  synopsis: "<key>",
  summary: "refuse the key from its next request on",
  help: `Revokes the key for good: the very next request with it gets 401. Only the
key's SHA-256 is sent. Revoking a revoked key again changes nothing.
`,
  options: {},
  async run(_, [key], worker) {
    const path = `/keys/${await hashOf(key)}/revoke`;
    const revoked = await worker.send<KeySummary>("POST", path, { notFound: NO_SUCH_KEY });
    console.log(`Revoked the ${keyName(revoked)} at ${worker.origin}: its next request gets 401.`);
  },
});

const plan = subcommand({
  synopsis: "<key> <plan>|account [--per-minute N --per-day N]",
  summary: "give the key limits of its own, or make it follow its account",
  help: `Gives the key limits of its own (<plan>: ${PlanSchema.options.join("|")}), which win
over its account's plan, or with \`account\` makes it follow its account's plan
again. Applies from the key's next request. Only the key's SHA-256 is sent.

${limitsHelp}`,
  options: limitOptions,
  async run(values, [key, plan], worker) {
    const hash = await hashOf(key);
    const limits = { plan, ...limitsOf(values) };
    const body = checkArguments(KeyPlanBodySchema, limits, ["plan"]);
    const path = `/keys/${hash}/plan`;
    const changed = await worker.send<KeySummary>("POST", path, { body, notFound: NO_SUCH_KEY });
    console.log(
      `The ${keyName(changed)} at ${worker.origin} now has ${keyLimitsText(changed)}, from its next request.`,
    );
  },
});

function statusText(key: KeySummary): string {
  if (key.status === "revoked" && key.revokedAt) return `revoked ${minuteOf(key.revokedAt)}`;
  if (key.status === "rolled" && key.expiresAt)
    return `rolled, works until ${minuteOf(key.expiresAt)}`;
  return key.status;
}

/** Columns padded to their widest cell, two spaces apart. */
function formatTable(rows: string[][]): string {
  const widths = (rows[0] ?? []).map((_, i) =>
    Math.max(...rows.map((row) => (row[i] ?? "").length)),
  );
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
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

const list = subcommand({
  synopsis: "--account EMAIL",
  summary: "the account's keys, newest first",
  help: `Shows the account's plan and its keys, newest first: last four characters,
when it was made, status, limits and whether they come from the account's
plan or the key's own. Keys themselves are never stored, so never shown.

  --account EMAIL           whose keys (required)`,
  options: { account: { type: "string" } },
  async run(values, _, worker) {
    if (values.account === undefined) throw new UsageError("--account EMAIL is required");
    const query = checkArguments(AccountQuerySchema, { account: values.account });
    const path = `/keys?${new URLSearchParams(query)}`;
    const notFound = `no account ${query.account}`;
    const { account, keys } = await worker.send<z.infer<typeof AccountKeysSchema>>("GET", path, {
      notFound,
    });
    const password = account.hasPassword ? "password set" : "no password yet";
    console.log(
      `${account.email}: ${limitsText(account)}, ${password}, since ${minuteOf(account.createdAt)}`,
    );
    console.log(keys.length === 0 ? "No keys." : formatTable([HEADER, ...keys.map(rowOf)]));
  },
});

await runOperatorCommand("key", { create, revoke, plan, list });
