import type { AccountUsage } from "../../accounts/account-usage.ts";
import type { Account } from "../../accounts/accounts.queries.ts";
import type { KeyRow } from "../../keys/keys.queries.ts";
import { limitsOf, type Plan } from "../../rate-limit/plans.ts";
import { CSRF_FIELD } from "../csrf.ts";
import { formatCount, formatUtc } from "./format.ts";
import { Layout } from "./layout.tsx";

export interface AccountPageProps {
  account: Pick<Account, "email" | "plan" | "perMinute" | "perDay">;
  csrf: string;
  keys: KeyRow[];
  usage: AccountUsage;
  now: Date;
  /** A key just made: its only appearance in full. */
  newKey?: string;
  notice?: string;
  error?: string;
}

const planNames: Record<Plan, string> = {
  free: "Free",
  pro: "Pro",
  business: "Business",
  enterprise: "Enterprise",
};

function planLimitsText(account: AccountPageProps["account"]): string {
  const limits = limitsOf(account.plan, account);
  return `${formatCount(limits.perMinute)} requests a minute and ${formatCount(limits.perDay)} a day for each key`;
}

type KeyState = "active" | "rolling" | "ended";

function keyState(key: KeyRow, now: Date): KeyState {
  if (key.revokedAt) return "ended";
  if (key.expiresAt) return key.expiresAt > now ? "rolling" : "ended";
  return "active";
}

function keyStatus(key: KeyRow, now: Date): string {
  if (key.revokedAt) return `Revoked ${formatUtc(key.revokedAt)}`;
  if (key.expiresAt && key.expiresAt > now) {
    return `Rolled: works until ${formatUtc(key.expiresAt)}, then refused`;
  }
  if (key.expiresAt) return `Expired ${formatUtc(key.expiresAt)}`;
  return "Active";
}

interface KeyActionProps {
  hash: string;
  action: "roll" | "revoke";
  label: string;
  csrf: string;
}

function KeyAction({ hash, action, label, csrf }: KeyActionProps) {
  return (
    <form method="post" action={`/dashboard/keys/${hash}/${action}`}>
      <input type="hidden" name={CSRF_FIELD} value={csrf} />
      <button type="submit">{label}</button>
    </form>
  );
}

function NewKey({ value }: { value: string }) {
  return (
    <section class="new-key" aria-labelledby="new-key-label">
      <p>
        <label id="new-key-label" for="new-key">
          Your new API key
        </label>
      </p>
      <input id="new-key" type="text" readonly value={value} data-testid="new-key" />
      <p>
        Copy it now and keep it somewhere safe: click the field, select all (Ctrl+A, or ⌘A on a Mac)
        and copy (Ctrl+C or ⌘C). <strong>It will not be shown again</strong>; afterwards this page
        shows only its last four characters.
      </p>
    </section>
  );
}

/** The signed-in home: plan, usage, keys and what can be done with them. */
export function AccountPage(props: AccountPageProps) {
  const { account, csrf, keys, usage, now, newKey, notice, error } = props;
  return (
    <Layout title="Your account" signedIn={{ email: account.email, csrf }}>
      {notice && <p class="notice">{notice}</p>}
      {error && <p class="error">{error}</p>}
      {newKey && <NewKey value={newKey} />}

      <h2>Plan</h2>
      <p>
        <strong data-testid="plan">{planNames[account.plan]}</strong>: {planLimitsText(account)}. To
        change plans, contact us.
      </p>

      <h2>Usage</h2>
      <p>
        This minute: <strong data-testid="usage-minute">{formatCount(usage.minute)}</strong>{" "}
        requests. Today (UTC): <strong data-testid="usage-day">{formatCount(usage.day)}</strong>{" "}
        requests. Totals over all your keys.
      </p>

      <h2>API keys</h2>
      <form method="post" action="/dashboard/keys">
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <button type="submit">Create a key</button>
      </form>
      {keys.length === 0 ? (
        <p>You have no keys yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Key</th>
              <th>Created</th>
              <th>Status</th>
              <th>Requests today</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => {
              const state = keyState(key, now);
              const today = usage.byKey.get(key.hash)?.day;
              return (
                <tr data-key-last-four={key.lastFour}>
                  <td>
                    <code>…{key.lastFour}</code>
                  </td>
                  <td>{formatUtc(key.createdAt)}</td>
                  <td>{keyStatus(key, now)}</td>
                  <td>
                    {today ? `${formatCount(today.used)} of ${formatCount(today.limit)}` : "—"}
                  </td>
                  <td>
                    {state === "active" && (
                      <KeyAction hash={key.hash} action="roll" label="Roll" csrf={csrf} />
                    )}
                    {state !== "ended" && (
                      <KeyAction hash={key.hash} action="revoke" label="Revoke" csrf={csrf} />
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <p>
        Rolling a key makes a new one and keeps the old one working for 24 hours, so you can swap it
        without downtime. Revoking a key refuses it from the next request on.
      </p>
    </Layout>
  );
}
