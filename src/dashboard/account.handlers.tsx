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
import { listWebhooksWithLatestDelivery } from "../webhooks/webhook-overview.ts";
import { formToken } from "./csrf.ts";
import type { DashboardEnv } from "./dashboard-env.ts";
import { messageResponse } from "./message-responses.tsx";
import { leaveNotice, takeNotices } from "./notices.ts";
import { AccountPage } from "./pages/account-page.tsx";
import { RevokePage } from "./pages/revoke-page.tsx";

type DashboardContext = Context<DashboardEnv>;

const ACCOUNT_PAGE = "/dashboard/account";

const capReached = `You already have ${MAX_WORKING_KEYS} working keys, the most an account can have. Revoke a key first, then make another.`;

/**
 * The account page. Everything that can fail is read first and notices are
 * taken last, so a failure on the way never deletes a new key unseen; usage
 * the keys' objects cannot give is left out rather than failing the page.
 */
async function renderAccount(
  c: DashboardContext,
  extras: { takeNotices?: boolean; error?: string },
  status: 200 | 409,
) {
  const { db, limiter } = c.var.services;
  const account = c.get("account");
  const [keys, webhooks] = await Promise.all([
    listAccountKeys(db, account.id),
    listWebhooksWithLatestDelivery(c.var.services, account.id),
  ]);
  const [usage, csrf] = await Promise.all([
    accountUsage(limiter, keys).catch(() => undefined),
    formToken(c, "session"),
  ]);
  const notices = extras.takeNotices ? await takeNotices(db, c.get("session")) : [];
  const page = (
    <AccountPage
      account={account}
      csrf={csrf}
      keys={keys}
      webhooks={webhooks}
      usage={usage}
      now={new Date()}
      notices={notices}
      {...(extras.error ? { error: extras.error } : {})}
    />
  );
  return c.html(page, status);
}

/** The one page that shows notices: each is deleted as it is shown, so a reload shows none. */
export function showAccount(c: DashboardContext) {
  return renderAccount(c, { takeNotices: true }, 200);
}

/** Post/Redirect/Get: the new key reaches the account page through a one-time notice. */
export async function createKey(c: DashboardContext) {
  const created = await createAccountKey(c.var.services, c.get("account"));
  if (!created.ok) return renderAccount(c, { error: capReached }, 409);
  await leaveNotice(c.var.services.db, c.get("session"), { kind: "key-created", key: created.key });
  return c.redirect(ACCOUNT_PAGE, 303);
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
    link: { href: ACCOUNT_PAGE, text: "Back to your account" },
  });
}

/** Asks before revoking: the page's form is the only thing that posts the revocation. */
export async function confirmRevoke(c: DashboardContext) {
  const key = await ownKey(c);
  if (!key) return keyNotFound(c);
  const page = (
    <RevokePage
      email={c.get("account").email}
      keyRow={key}
      csrf={await formToken(c, "session")}
      now={new Date()}
    />
  );
  return c.html(page);
}

export async function revokeKey(c: DashboardContext) {
  const key = await ownKey(c);
  if (!key) return keyNotFound(c);
  await revokeAccountKey(c.var.services, key.hash);
  await leaveNotice(c.var.services.db, c.get("session"), {
    kind: "key-revoked",
    lastFour: key.lastFour,
  });
  return c.redirect(ACCOUNT_PAGE, 303);
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
  await leaveNotice(c.var.services.db, c.get("session"), {
    kind: "key-rolled",
    key: rolled.key,
    oldLastFour: rolled.old.lastFour,
    graceEndsAt: rolled.graceEndsAt.getTime(),
  });
  return c.redirect(ACCOUNT_PAGE, 303);
}
