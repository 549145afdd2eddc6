import { changeWebhook } from "../webhooks/endpoint-changes.ts";
import { findWebhook, type Owner } from "../webhooks/webhooks.queries.ts";
import { messageResponse } from "./pages/layout.tsx";
import type { DashboardContext } from "./session.ts";

const ACCOUNT_PAGE = "/dashboard/account";

/** The endpoint the path names, if it is one of this account's. */
function webhookId(c: DashboardContext): number | undefined {
  const id = Number(c.req.param("id"));
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** The signed-in account, as the owner of its endpoints. */
const ownerOf = (c: DashboardContext): Owner => ({
  kind: "account",
  accountId: c.get("account").id,
});

const notFound = (c: DashboardContext) =>
  messageResponse(c, 404, "Endpoint not found", "Your account has no such webhook endpoint.");

/** Pause (`enabled: false`) or resume an endpoint, then back to the account page. */
export function setWebhookEnabled(enabled: boolean) {
  return async function setWebhookEnabled(c: DashboardContext) {
    const id = webhookId(c);
    const changed =
      id === undefined
        ? undefined
        : await changeWebhook(c.var.services, ownerOf(c), id, { enabled });
    if (!changed) return notFound(c);
    return c.redirect(ACCOUNT_PAGE, 303);
  };
}

/** Send a test event to the endpoint; its delivery shows as the latest on the account page. */
export async function sendWebhookTest(c: DashboardContext) {
  const id = webhookId(c);
  const { db, webhookEndpoints } = c.var.services;
  if (id === undefined || !(await findWebhook(db, ownerOf(c), id))) return notFound(c);
  await webhookEndpoints.sendTest(id);
  return c.redirect(ACCOUNT_PAGE, 303);
}
