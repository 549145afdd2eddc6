import type { AccountSummary } from "../admin/admin.schemas.ts";
import { expectPositionals, parseCommand } from "./args.ts";
import { minuteOf } from "./describe.ts";
import { projectRoot } from "./project.ts";
import { connect, targetHelp, targetOf, targetOptions } from "./worker-target.ts";

export const inviteHelp = `Usage: npm run account -- invite <email> [options]

Prints a one-time link, valid for 24 hours, with which the account's owner
sets its password; the account is made (on Free) if it does not exist. A new
link replaces the account's earlier one. Send it to the owner only.

${targetHelp}`;

interface Invite {
  account: AccountSummary;
  accountCreated: boolean;
  link: string;
  expiresAt: string;
}

export async function inviteCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, targetOptions);
  if (values.help) {
    console.log(inviteHelp);
    return 0;
  }
  const [email = ""] = expectPositionals(positionals, ["email"]);
  const worker = await connect(targetOf(values), projectRoot());

  const invite = await worker.call<Invite>({
    method: "POST",
    path: `/admin/accounts/${encodeURIComponent(email)}/invite`,
  });
  if (invite.accountCreated) console.log(`Made the account ${invite.account.email} (Free).`);
  console.log(
    `One-time link for ${invite.account.email} to set its password, until ${minuteOf(invite.expiresAt)}:`,
  );
  console.log(invite.link);
  return 0;
}
