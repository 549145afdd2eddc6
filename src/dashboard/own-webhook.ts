import type { Owner } from "../accounts/owner.ts";
import { DASHBOARD_PATH } from "../api/public-paths.ts";
import { findWebhook } from "../webhooks/webhooks.queries.ts";
import type { Webhook } from "../webhooks/webhooks.schemas.ts";
import { ACCOUNT_PAGE, messageResponse } from "./pages/layout.tsx";
import type { DashboardContext } from "./session.ts";

/** The signed-in account, as the owner of its endpoints. */
export const accountOwner = (c: DashboardContext): Owner => ({
  kind: "account",
  accountId: c.get("account").id,
});

/** A positive whole number from the path, or undefined. */
export function idParam(c: DashboardContext, name: string): number | undefined {
  const text = c.req.param(name) ?? "";
  const id = /^\d{1,15}$/.test(text) ? Number(text) : 0;
  return id > 0 ? id : undefined;
}

/** The endpoint the path names, if it is the signed-in account's; another account's is not found. */
export async function ownWebhook(c: DashboardContext): Promise<Webhook | undefined> {
  const id = idParam(c, "id");
  return id === undefined ? undefined : findWebhook(c.get("services").db, accountOwner(c), id);
}

export const webhookNotFound = (c: DashboardContext) =>
  messageResponse(c, 404, "Endpoint not found", "Your account has no such webhook endpoint.", {
    href: ACCOUNT_PAGE,
    text: "Back to your account",
  });

/** Where every action on an endpoint ends: its page. */
export const webhookPage = (id: number) => `${DASHBOARD_PATH}/webhooks/${id}`;
