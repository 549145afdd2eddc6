import * as changes from "../keys/key-changes.ts";
import { findAccountKey, listAccountKeys } from "../keys/keys.queries.ts";
import { listWebhooksWithLatestDelivery } from "../webhooks/webhook-overview.ts";
import { accountUsage } from "./account-usage.ts";
import { formToken, signedInAs } from "./csrf.ts";
import { leaveNotice, type Notice, takeNotices } from "./notices.ts";
import { AccountPage } from "./pages/account-page.tsx";
import { RevokePage } from "./pages/keys.tsx";
import { ACCOUNT_PAGE, messageResponse } from "./pages/layout.tsx";
import type { DashboardContext } from "./session.ts";

/**
 * The account page: with notices (taken, so a reload shows none), or with
 * the error a refused post re-renders it with. Everything that can fail is
 * read first and notices are taken last, so a failure on the way never
 * deletes a new key unseen; usage the keys' objects cannot give is left out
 * rather than failing the page.
 */
async function renderAccount(c: DashboardContext, error?: string) {
  const { db, limiter } = c.get("services");
  const account = c.get("account");
  const [keys, webhooks] = await Promise.all([
    listAccountKeys(db, account.id),
    listWebhooksWithLatestDelivery(c.get("services"), account.id),
  ]);
  const [usage, csrf] = await Promise.all([
    accountUsage(limiter, keys).catch(() => undefined),
    formToken(c, "session"),
  ]);
  const notices = error ? [] : await takeNotices(db, c.get("session"));
  const page = (
    <AccountPage
      account={account}
      csrf={csrf}
      keys={keys}
      webhooks={webhooks}
      usage={usage}
      now={new Date()}
      notices={notices}
      error={error}
    />
  );
  return c.html(page, error ? 409 : 200);
}

export function showAccount(c: DashboardContext) {
  return renderAccount(c);
}

/** Post/Redirect/Get: what the post did reaches the page through a one-time notice. */
export async function noticeAndRedirect(c: DashboardContext, notice: Notice, page = ACCOUNT_PAGE) {
  await leaveNotice(c.get("services").db, c.get("session"), notice);
  return c.redirect(page, 303);
}

function keyNotFound(c: DashboardContext) {
  return messageResponse(c, 404, "Key not found", "Your account has no such key.", {
    href: ACCOUNT_PAGE,
    text: "Back to your account",
  });
}

/** The key named in the address, if it is one of this account's; other accounts' keys are not found. */
function ownKey(c: DashboardContext) {
  const hash = c.req.param("hash") ?? "";
  if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
  return findAccountKey(c.get("services").db, c.get("account").id, hash);
}

/** Asks before revoking: the page's form is the only thing that posts the revocation. */
export async function confirmRevoke(c: DashboardContext) {
  const key = await ownKey(c);
  if (!key) return keyNotFound(c);
  const signedIn = await signedInAs(c);
  return c.html(<RevokePage {...signedIn} keyRow={key} now={new Date()} />);
}

export async function submitRevokeForm(c: DashboardContext) {
  const key = await ownKey(c);
  if (!key) return keyNotFound(c);
  await changes.revokeKey(c.get("services"), key.hash);
  return noticeAndRedirect(c, { kind: "key-revoked", lastFour: key.lastFour });
}

export async function submitRollForm(c: DashboardContext) {
  const hash = c.req.param("hash") ?? "";
  const rolled = await changes.rollKey(c.get("services"), c.get("account").id, hash);
  if (!rolled.ok && rolled.reason === "not_found") return keyNotFound(c);
  if (!rolled.ok) {
    return renderAccount(
      c,
      `The key ending …${rolled.old.lastFour} cannot be rolled: it is already revoked, rolled or expired.`,
    );
  }
  return noticeAndRedirect(c, {
    kind: "key-rolled",
    key: rolled.key,
    oldLastFour: rolled.old.lastFour,
    graceEndsAt: rolled.worksUntil.getTime(),
  });
}
