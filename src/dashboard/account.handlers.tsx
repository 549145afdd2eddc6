import type { Context } from "hono";
import {
  type AccountKey,
  findAccountKey,
  listAccountKeys,
} from "../accounts/account-keys.queries.ts";
import { createAccountKey, revokeAccountKey, rollAccountKey } from "../accounts/account-keys.ts";
import { accountUsage } from "../accounts/account-usage.ts";
import { database } from "../db/database.ts";
import { csrfToken } from "./csrf.ts";
import type { DashboardEnv } from "./dashboard-env.ts";
import { messageResponse } from "./message-responses.tsx";
import { AccountPage } from "./pages/account-page.tsx";
import { formatUtc } from "./pages/format.ts";

type DashboardContext = Context<DashboardEnv>;

/** Keys an account may hold at once that still work (active or in a roll's grace period). */
export const MAX_LIVE_KEYS = 20;

interface Extras {
  newKey?: string;
  notice?: string;
  error?: string;
}

function isLive(key: AccountKey, now: Date): boolean {
  return !key.revokedAt && (!key.expiresAt || key.expiresAt > now);
}

async function renderAccount(
  c: DashboardContext,
  extras: Extras = {},
  status: 200 | 201 | 409 = 200,
) {
  const account = c.get("account");
  const keys = await listAccountKeys(database(c.env.DB), account.id);
  const [usage, csrf] = await Promise.all([
    accountUsage(c.env, keys),
    csrfToken(c.env.SESSION_SECRET, c.get("session").nonce),
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
  const keys = await listAccountKeys(database(c.env.DB), c.get("account").id);
  const now = new Date();
  if (keys.filter((key) => isLive(key, now)).length >= MAX_LIVE_KEYS) {
    const error = `You already have ${MAX_LIVE_KEYS} working keys, the most an account can have. Revoke one to make another.`;
    return renderAccount(c, { error }, 409);
  }
  const { key } = await createAccountKey(c.env, c.get("account"));
  return renderAccount(c, { newKey: key }, 201);
}

/** The key named in the address, if it is one of this account's; other accounts' keys are not found. */
async function ownKey(c: DashboardContext): Promise<AccountKey | undefined> {
  const hash = c.req.param("hash") ?? "";
  if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
  return findAccountKey(database(c.env.DB), c.get("account").id, hash);
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
  if (!key.revokedAt) await revokeAccountKey(c.env, key.hash);
  return c.redirect(`/dashboard/account?revoked=${key.lastFour}`, 303);
}

export async function rollKey(c: DashboardContext) {
  const key = await ownKey(c);
  if (!key) return keyNotFound(c);
  if (key.revokedAt || key.expiresAt) {
    const error = `The key ending …${key.lastFour} cannot be rolled: it is already revoked or rolled.`;
    return renderAccount(c, { error }, 409);
  }
  const rolled = await rollAccountKey(c.env, c.get("account"), key.hash);
  const notice = `The old key ending …${key.lastFour} keeps working until ${formatUtc(rolled.oldKeyExpiresAt)}, then is refused. Switch your clients to the new key before then.`;
  return renderAccount(c, { newKey: rolled.key, notice }, 201);
}
