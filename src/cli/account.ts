import type { z } from "@hono/zod-openapi";
import {
  AccountPlanBodySchema,
  type AccountPlanChangeSchema,
  EmailParamsSchema,
  type InviteSchema,
} from "../admin/admin.schemas.ts";
import { checkArguments, minuteOf, runOperatorCommand, subcommand } from "./admin-client.ts";
import { limitOptions, limitsHelp, limitsOf, limitsText, planChoices } from "./plan-limits.ts";

/** The account's own path below the admin base; the email is checked by the admin schema first. */
function accountPath(email: string | undefined, action: string): string {
  const params = checkArguments(EmailParamsSchema, { email }, ["email"]);
  return `/accounts/${encodeURIComponent(params.email)}/${action}`;
}

const plan = subcommand({
  synopsis: "<email> <plan> [--per-minute N --per-day N]",
  summary: "move the account and every key that follows it to the plan",
  help: `Moves the account to the plan (<plan>: ${planChoices}). Every key
of it that follows its account's plan takes the new limits from its next
request, and so do keys made later; keys with limits of their own keep them.

${limitsHelp}`,
  options: limitOptions,
  async run(values, [email, plan], worker) {
    const path = accountPath(email, "plan");
    const body = checkArguments(AccountPlanBodySchema, { plan, ...limitsOf(values) }, ["plan"]);
    type Change = z.infer<typeof AccountPlanChangeSchema>;
    const { account, keysUpdated } = await worker.send<Change>("POST", path, {
      body,
      notFound: `no account ${email}`,
    });
    console.log(
      `Moved ${account.email} at ${worker.origin} to ${limitsText(account)}; ${keysUpdated} of its keys took it.`,
    );
  },
});

const invite = subcommand({
  synopsis: "<email>",
  summary: "print a one-time link (24 h) that sets the account's password",
  help: `Prints a one-time link, valid for 24 hours, with which the account's owner
sets its password; the account is made (on Free) if it does not exist. A new
link replaces the account's earlier one. Send it to the owner only.
`,
  options: {},
  async run(_, [email], worker) {
    const path = accountPath(email, "invite");
    const made = await worker.send<z.infer<typeof InviteSchema>>("POST", path);
    if (made.accountCreated) console.log(`Made the account ${made.account.email} (Free).`);
    console.log(
      `One-time link for ${made.account.email} to set its password, until ${minuteOf(made.expiresAt)}:`,
    );
    console.log(made.link);
  },
});

await runOperatorCommand("account", { plan, invite });
