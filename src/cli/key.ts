import type { z } from "@hono/zod-openapi";
import {
  type AccountKeysSchema,
  AccountQuerySchema,
  type CreatedKeySchema,
  CreateKeyBodySchema,
  KeyPlanBodySchema,
  type KeySummary,
  type ListedKey,
} from "../admin/admin.schemas.ts";
import { hashApiKey, isWellFormedKey } from "../keys/key-format.ts";
import { SCOPES } from "../scopes.ts";
import { checkArguments, minuteOf, runOperatorCommand, subcommand } from "./admin-client.ts";
import { UsageError } from "./command.ts";
import { limitOptions, limitsHelp, limitsOf, limitsText, planChoices } from "./plan-limits.ts";

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

const SECONDS_PER_UNIT: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `90s`, `30m`, `12h`, `30d` as seconds; the Worker's schema judges the bounds. */
function secondsOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const [, amount, unit = ""] = /^(\d{1,9})([smhd])$/.exec(text) ?? [];
  if (amount === undefined) {
    throw new UsageError(
      `--expires-in takes a number and s, m, h or d (90s, 30m, 12h, 30d), got "${text}"`,
    );
  }
  return Number(amount) * (SECONDS_PER_UNIT[unit] ?? 1);
}

const restrictionOptions = {
  scopes: { type: "string" },
  "expires-in": { type: "string" },
  "allow-ip": { type: "string", multiple: true },
} as const;

/** What the key's restrictions are called on this command line. */
const restrictionNames = { expiresInSeconds: "--expires-in", allowedRanges: "--allow-ip" };

/** "all scopes" or the list; "never"; "any address" or the ranges. */
const scopesText = (key: KeySummary) =>
  key.scopes.length === SCOPES.length ? "all scopes" : key.scopes.join(",");
/** An expiry to the second: a key made to live 90 s should not read as ending a minute early. */
const expiryText = (key: KeySummary) =>
  key.expiresAt ? `${key.expiresAt.slice(0, 19).replace("T", " ")} UTC` : "never";
const rangesText = (key: KeySummary) => key.allowedRanges?.join(",") ?? "any address";

const create = subcommand({
  synopsis:
    "[--account EMAIL] [--plan PLAN [--per-minute N --per-day N]] [--scopes S,S…] [--expires-in 90s|30m|12h|30d] [--allow-ip CIDR …]",
  summary: "make a key; it is printed alone on the last line",
  help: `Makes a new API key and prints it alone on the last line. It is shown this
once: the Worker stores only its SHA-256. Its scopes, expiry and addresses are
fixed for good (a roll copies them).

  --account EMAIL           the account the key belongs to, made (on Free, with no password)
                            if missing; default: the environment's operator account
  --plan PLAN               ${planChoices}: limits of the key's own; without
                            it the key follows its account's plan
${limitsHelp}
  --scopes S,S…             only these scopes, comma-separated, from
                            ${SCOPES.join(", ")};
                            default: all of them (a write scope does not grant the read one)
  --expires-in TIME         the key stops working this long after it is made: a number and
                            s, m, h or d (90s, 30m, 12h, 30d), from 1 minute to 365 days;
                            default: never
  --allow-ip CIDR           only requests from this address or range (10.0.0.0/8,
                            2001:db8::/32, 203.0.113.7) may use the key; repeat for up to
                            10; default: any address`,
  options: {
    ...limitOptions,
    ...restrictionOptions,
    account: { type: "string" },
    plan: { type: "string" },
  },
  async run(values, _, worker) {
    const { account, plan, scopes } = values;
    const restrictions = {
      scopes: scopes?.split(",").map((scope) => scope.trim()),
      expiresInSeconds: secondsOf(values["expires-in"]),
      allowedRanges: values["allow-ip"],
    };
    const body = checkArguments(
      CreateKeyBodySchema,
      { account, plan, ...limitsOf(values), ...restrictions },
      [],
      restrictionNames,
    );
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
    console.log(
      `It has ${scopesText(made)}, expires ${expiryText(made)}, and works from ${rangesText(made)}.`,
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
  help: `Gives the key limits of its own (<plan>: ${planChoices}), which win
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
  if (key.status === "rolled" && key.graceEndsAt) {
    // ISO instants in one format compare as text.
    const until =
      key.expiresAt && key.expiresAt < key.graceEndsAt ? key.expiresAt : key.graceEndsAt;
    return `rolled, works until ${minuteOf(until)}`;
  }
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

const HEADER = [
  "KEY",
  "CREATED",
  "LAST USED",
  "EXPIRES",
  "SCOPES",
  "ADDRESSES",
  "STATUS",
  "PLAN",
  "PER MINUTE",
  "PER DAY",
  "LIMITS FROM",
];

const rowOf = (key: ListedKey) => [
  `…${key.lastFour}`,
  minuteOf(key.createdAt),
  key.lastUsedAt ? minuteOf(key.lastUsedAt) : "never",
  expiryText(key),
  key.scopes.length === SCOPES.length ? "all" : key.scopes.join(","),
  key.allowedRanges?.join(",") ?? "any",
  statusText(key),
  key.plan,
  String(key.perMinute),
  String(key.perDay),
  key.limitsFrom,
];

const list = subcommand({
  synopsis: "[--account EMAIL]",
  summary: "the account's keys, newest first",
  help: `Shows the account's plan and its keys, newest first: last four characters,
when it was made, when it last admitted a request (to the minute), when it
expires, its scopes and the addresses it may be used from, its status, limits
and whether they come from the account's plan or the key's own. Keys
themselves are never stored, so never shown.

  --account EMAIL           whose keys; default: the environment's operator account`,
  options: { account: { type: "string" } },
  async run(values, _, worker) {
    const query = checkArguments(AccountQuerySchema, { account: values.account });
    const path = query.account === undefined ? "/keys" : `/keys?${new URLSearchParams(query)}`;
    const notFound = `no account ${query.account ?? "for the operator yet: make a key first"}`;
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
