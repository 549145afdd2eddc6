import { DASHBOARD_PATH } from "../api/public-paths.ts";
import type { Database } from "../db/database.ts";
import { isSecretToken, newSecretToken } from "../utils/base64url.ts";
import { sha256Hex } from "../utils/sha256.ts";
import { type Account, findOrCreateAccount } from "./accounts.queries.ts";
import { findInvitedAccount, redeemInvite, saveInvite } from "./invites.queries.ts";

/** How long an invite link works. */
const INVITE_TTL_MS = 24 * 60 * 60 * 1000;

/** Where an invite link points, below the dashboard; the token is the rest of the path. */
export const INVITE_PATH = `${DASHBOARD_PATH}/invite/`;

interface Invite {
  account: Account;
  accountCreated: boolean;
  /** The one-time token: shown once in the link, stored only hashed. */
  token: string;
  expiresAt: Date;
}

/**
 * A one-time link for the account's owner to set its password, making the
 * account (with no password) when the operator names a new email. A new
 * invite replaces the account's earlier one.
 */
export async function inviteAccount(
  db: Database,
  invited: { email: string; operatorEmail: string },
  now: number,
): Promise<Invite> {
  const { account, created } = await findOrCreateAccount(db, invited.email, invited.operatorEmail);
  const token = newSecretToken();
  const expiresAt = new Date(now + INVITE_TTL_MS);
  await saveInvite(db, { tokenHash: await sha256Hex(token), accountId: account.id, expiresAt });
  return { account, accountCreated: created, token, expiresAt };
}

/** The account the invite is for, while it is unused and unexpired. */
export async function accountOfInvite(
  db: Database,
  token: string,
  now: number,
): Promise<Account | undefined> {
  if (!isSecretToken(token)) return undefined;
  return findInvitedAccount(db, await sha256Hex(token), now);
}

/** Sets the password and spends the invite; undefined when it was already used or has expired. */
export async function acceptInvite(
  db: Database,
  token: string,
  passwordHash: string,
  now: number,
): Promise<Account | undefined> {
  if (!isSecretToken(token)) return undefined;
  return redeemInvite(db, await sha256Hex(token), passwordHash, now);
}
