import { findAccountByEmail, findOrCreateAccount } from "../accounts/accounts.queries.ts";
import { INVITE_PATH, inviteAccount } from "../accounts/invites.ts";
import type { RouteHandlers } from "../api/route-handlers.ts";
import { ApiError, messages } from "../errors.ts";
import * as changes from "../keys/key-changes.ts";
import { listAccountKeys } from "../keys/keys.queries.ts";
import * as outbox from "../outbox/outbox-relay.ts";
import type { adminRoutes } from "./admin.routes.ts";
import { accountSummary, keySummary } from "./summaries.ts";

const noSuchKey = () => new ApiError("not_found", "No key has this hash.");
const noSuchAccount = () => new ApiError("not_found", "No account has this email address.");

/** A body's own numbers, null where the plan gives them. */
function numbersOf(body: { perMinute?: number | undefined; perDay?: number | undefined }) {
  return { perMinute: body.perMinute ?? null, perDay: body.perDay ?? null };
}

/** The operator's handlers, one per route of the table. */
export const adminHandlers = {
  createKey: async (c) => {
    const services = c.get("services");
    const { account: email, plan, perMinute, perDay, ...restrictions } = c.req.valid("json");
    const { operatorEmail } = services.config;
    const { account, created } = await findOrCreateAccount(
      services.db,
      email ?? operatorEmail,
      operatorEmail,
    );
    const limits = plan ? { plan, ...numbersOf({ perMinute, perDay }) } : changes.FOLLOW_ACCOUNT;
    const made = await changes.createKey(services, account, { limits, ...restrictions });
    if (!made.ok) {
      throw new ApiError(
        "limit_reached",
        messages.limitReached(made.cap, "working keys", "revoke a key"),
      );
    }
    return c.json({ key: made.key, accountCreated: created, ...keySummary(made.row) }, 201);
  },

  /** Each key with its last use, from its Durable Object: one call per key. */
  listKeys: async (c) => {
    const { db, limiter, config } = c.get("services");
    const email = c.req.valid("query").account ?? config.operatorEmail;
    const account = await findAccountByEmail(db, email);
    if (!account) throw noSuchAccount();
    const keys = await listAccountKeys(db, account.id);
    const lastUses = await Promise.all(keys.map((key) => limiter.lastUse(key.hash)));
    const now = Date.now();
    const listed = keys.map((key, i) => {
      const lastUse = lastUses[i];
      const lastUsedAt = lastUse === undefined ? null : new Date(lastUse).toISOString();
      return { ...keySummary(key, now), lastUsedAt };
    });
    return c.json({ account: accountSummary(account), keys: listed }, 200);
  },

  revokeKey: async (c) => {
    const row = await changes.revokeKey(c.get("services"), c.req.valid("param").hash);
    if (!row) throw noSuchKey();
    return c.json(keySummary(row), 200);
  },

  keyPlan: async (c) => {
    const body = c.req.valid("json");
    const limits =
      body.plan === "account" ? changes.FOLLOW_ACCOUNT : { plan: body.plan, ...numbersOf(body) };
    const row = await changes.setKeyLimits(c.get("services"), c.req.valid("param").hash, limits);
    if (!row) throw noSuchKey();
    return c.json(keySummary(row), 200);
  },

  accountPlan: async (c) => {
    const body = c.req.valid("json");
    const changed = await changes.setAccountPlan(c.get("services"), c.req.valid("param").email, {
      plan: body.plan,
      ...numbersOf(body),
    });
    if (!changed) throw noSuchAccount();
    return c.json(
      { account: accountSummary(changed.account), keysUpdated: changed.keys.length },
      200,
    );
  },

  invite: async (c) => {
    const { db, config } = c.get("services");
    const invited = { email: c.req.valid("param").email, operatorEmail: config.operatorEmail };
    const invite = await inviteAccount(db, invited, Date.now());
    const link = new URL(`${INVITE_PATH}${invite.token}`, c.req.url).href;
    return c.json(
      {
        account: accountSummary(invite.account),
        accountCreated: invite.accountCreated,
        link,
        expiresAt: invite.expiresAt.toISOString(),
      },
      201,
    );
  },

  /** The scheduled sweep of the outbox, on demand: cron does not fire under wrangler dev. */
  dispatchEvents: async (c) => {
    const deliveriesQueued = await outbox.dispatchEvents(
      c.get("services"),
      Date.now(),
      outbox.SWEEP_ROUNDS,
    );
    return c.json({ deliveriesQueued }, 200);
  },
} satisfies RouteHandlers<typeof adminRoutes>;
