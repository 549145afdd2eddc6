import type { Context } from "hono";
import {
  createKey as createAccountKey,
  revokeKey as revokeAccountKey,
  rollKey as rollAccountKey,
} from "../accounts/account-changes.ts";
import { accountUsage } from "../accounts/account-usage.ts";
import {
  findAccountKey,
  type KeyRow,
  listAccountKeys,
  MAX_WORKING_KEYS,
} from "../keys/keys.queries.ts";
import { csrfToken } from "./csrf.ts";
import type { DashboardEnv } from "./dashboard-env.ts";
import { messageResponse } from "./message-responses.tsx";
import { AccountPage } from "./pages/account-page.tsx";
import { formatUtc } from "./pages/format.ts";

type DashboardContext = Context<DashboardEnv>;

interface Extras {
  newKey?: string;
  notice?: string;
  error?: string;
}

const capReached = `You already have ${MAX_WORKING_KEYS} working keys, the most an account can have. Revoke a key first, then make another.`;

async function renderAccount(
  c: DashboardContext,
  extras: Extras = {},
  status: 200 | 201 | 409 = 200,
) {
  const { db, limiter } = c.var.services;
  const account = c.get("account");
  const keys = await listAccountKeys(db, account.id);
  const [usage, csrf] = await Promise.all([
    accountUsage(limiter, keys),
    csrfToken(c.env.SESSION_SECRET, c.get("session").id),
  ]);
  const page = (
    <AccountPage
      account={account}
      csrf={csrf}
      keys={keys}
      usage={usage}
      now={new Date()}
      {...extras}
    />
  );
  return c.html(page, status);
}

export function showAccount(c: DashboardContext) {
  const revoked = c.req.query("revoked");
  const notice =
    revoked && /^[0-9A-Za-z]{4}$/.test(revoked)
      ? `The key ending …${revoked} is revoked: requests with it are refused from now on.`
      : undefined;
  return renderAccount(c, { notice });
}

/** The response is the only place the new key ever appears in full. */
export async function createKey(c: DashboardContext) {
  const created = await createAccountKey(c.var.services, c.get("account"));
  if (!created.ok) return renderAccount(c, { error: capReached }, 409);
  return renderAccount(c, { newKey: created.key }, 201);
}

/** The key named in the address, if it is one of this account's; other accounts' keys are not found. */
async function ownKey(c: DashboardContext): Promise<KeyRow | undefined> {
  const hash = c.req.param("hash") ?? "";
  if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
  return findAccountKey(c.var.services.db, c.get("account").id, hash);
}

function keyNotFound(c: DashboardContext) {
  return messageResponse(c, 404, {
    title: "Key not found",
    message: "Your account has no such key.",
    link: { href: "/dashboard/account", text: "Back to your account" },
  });
}

export async function revokeKey(c: DashboardContext) {
  const key = await ownKey(c);
  if (!key) return keyNotFound(c);
  await revokeAccountKey(c.var.services, key.hash);
  return c.redirect(`/dashboard/account?revoked=${key.lastFour}`, 303);
}

export async function rollKey(c: DashboardContext) {
  const hash = c.req.param("hash") ?? "";
  const rolled = await rollAccountKey(c.var.services, c.get("account").id, hash);
  if (!rolled.ok && rolled.reason === "not_found") return keyNotFound(c);
  if (!rolled.ok) {
    const error =
      rolled.reason === "cap"
        ? capReached
        : `The key ending …${rolled.old.lastFour} cannot be rolled: it is already revoked or rolled.`;
    return renderAccount(c, { error }, 409);
  }
  const notice = `The old key ending …${rolled.old.lastFour} keeps working until ${formatUtc(rolled.graceEndsAt)}, then is refused. Switch your clients to the new key before then.`;
  return renderAccount(c, { newKey: rolled.key, notice }, 201);
}
