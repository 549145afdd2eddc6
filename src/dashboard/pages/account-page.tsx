import type { Account } from "../../accounts/accounts.queries.ts";
import type { KeyRow } from "../../keys/keys.queries.ts";
import { limitsOf, type Plan } from "../../rate-limit/plans.ts";
import type { WebhookWithLatestDelivery } from "../../webhooks/webhook-overview.ts";
import { MAX_WEBHOOKS } from "../../webhooks/webhooks.schemas.ts";
import type { AccountUsage } from "../account-usage.ts";
import type { Notice } from "../notices.ts";
import { formatCount } from "./format.ts";
import { KeyTable } from "./keys.tsx";
import { Layout } from "./layout.tsx";
import { Notices } from "./notice-view.tsx";
import { AccountUsageSection, KeyUsageSection } from "./usage.tsx";
import { WebhookTable } from "./webhook-table.tsx";

interface AccountPageProps {
  account: Pick<Account, "email" | "plan" | "perMinute" | "perDay">;
  csrf: string;
  keys: KeyRow[];
  /** Undefined when the keys' Durable Objects could not be asked: the page still shows the keys. */
  usage: AccountUsage | undefined;
  webhooks: WebhookWithLatestDelivery[];
  now: Date;
  /** What the last form did; a new key appears in full only here, once. */
  notices?: Notice[];
  error?: string;
}

const planNames: Record<Plan, string> = {
  free: "Free",
  pro: "Pro",
  business: "Business",
  enterprise: "Enterprise",
};

/** The signed-in home: plan, usage, keys and what can be done with them, webhook endpoints. */
export function AccountPage(props: AccountPageProps) {
  const { account, csrf, keys, webhooks, usage, now, notices = [], error } = props;
  const limits = limitsOf(account.plan, account);
  return (
    <Layout title="Your account" signedIn={{ email: account.email, csrf }}>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <Notices notices={notices} />

      <h2>Your shelter's animals</h2>
      <p>
        Add the animals adopters look for, keep their details and status up to date, and show their
        photos, from here or from a phone.
      </p>
      <p class="actions">
        <a class="button" href="/dashboard/animals">
          Your animals
        </a>
        <a class="button secondary" href="/dashboard/shelters">
          Your shelters
        </a>
      </p>

      <h2>Plan</h2>
      <p>
        <strong data-testid="plan">{planNames[account.plan]}</strong>:{" "}
        {formatCount(limits.perMinute)} requests a minute and {formatCount(limits.perDay)} a day for
        each key. To change plans, contact us.
      </p>

      {usage ? (
        <AccountUsageSection usage={usage} />
      ) : (
        <section aria-labelledby="usage-heading">
          <h2 id="usage-heading">Usage</h2>
          <p class="error">Usage cannot be shown just now; reload in a moment.</p>
        </section>
      )}

      <h2>API keys</h2>
      <p>
        <a class="button" href="/dashboard/keys/new">
          Create a key
        </a>
      </p>
      {keys.length === 0 ? (
        <p>You have no keys yet.</p>
      ) : (
        <KeyTable keys={keys} usage={usage?.byKey ?? new Map()} csrf={csrf} now={now} />
      )}
      <p class="muted">
        Rolling a key makes a new one and keeps the old one working for 24 hours, so you can swap it
        without downtime. Revoking a key refuses it from the next request on.
      </p>
      {usage && <KeyUsageSection keys={keys} usage={usage.byKey} />}

      <h2>Webhook endpoints</h2>
      <p class="muted">
        Endpoints receive your events as they happen, signed so your receiver can check they came
        from us. Open one to change it, see its deliveries, retry them or recover missed events.
      </p>
      {webhooks.length < MAX_WEBHOOKS ? (
        <p>
          <a class="button" href="/dashboard/webhooks/new">
            Register an endpoint
          </a>
        </p>
      ) : (
        <p>
          You have {MAX_WEBHOOKS} endpoints, the most an account may have: delete one to add
          another.
        </p>
      )}
      {webhooks.length === 0 ? (
        <p>You have no webhook endpoints.</p>
      ) : (
        <WebhookTable webhooks={webhooks} csrf={csrf} />
      )}
    </Layout>
  );
}
