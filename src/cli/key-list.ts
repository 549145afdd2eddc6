import type { AccountSummary, KeySummary } from "../admin/admin.schemas.ts";
import { expectPositionals, parseCommand, UsageError } from "./args.ts";
import { accountText, formatTable, minuteOf, statusText } from "./describe.ts";
import { projectRoot } from "./project.ts";
import { connect, targetHelp, targetOf, targetOptions } from "./worker-target.ts";

export const listHelp = `Usage: npm run key -- list --account EMAIL [options]

Shows the account's plan and its keys, newest first: last four characters,
when it was made, status, limits and whether they come from the account's
plan or the key's own. Keys themselves are never stored, so never shown.

  --account EMAIL           whose keys (required)
${targetHelp}`;

interface AccountKeys {
  account: AccountSummary;
  keys: KeySummary[];
}

const HEADER = ["KEY", "CREATED", "STATUS", "PLAN", "PER MINUTE", "PER DAY", "LIMITS FROM"];

function rowOf(key: KeySummary): string[] {
  return [
    `…${key.lastFour}`,
    minuteOf(key.createdAt),
    statusText(key),
    key.plan,
    String(key.perMinute),
    String(key.perDay),
    key.limitsFrom,
  ];
}

export async function listCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    ...targetOptions,
    account: { type: "string" },
  });
  if (values.help) {
    console.log(listHelp);
    return 0;
  }
  expectPositionals(positionals, []);
  if (values.account === undefined) throw new UsageError("--account EMAIL is required");
  const email = values.account;
  const worker = await connect(targetOf(values), projectRoot());

  const { account, keys } = await worker.call<AccountKeys>({
    method: "GET",
    path: `/admin/keys?${new URLSearchParams({ account: email })}`,
    notFound: `no account ${email}`,
  });
  console.log(accountText(account));
  console.log(keys.length === 0 ? "No keys." : formatTable(HEADER, keys.map(rowOf)));
  return 0;
}
