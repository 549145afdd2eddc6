import type { AccountUsage } from "../../accounts/account-usage.ts";
import type { Account } from "../../accounts/accounts.queries.ts";
import type { KeyRow } from "../../keys/keys.queries.ts";
import { limitsOf, type Plan } from "../../rate-limit/plans.ts";
import type { WebhookWithLatestDelivery } from "../../webhooks/webhook-overview.ts";
import { CSRF_FIELD } from "../csrf.ts";
import type { Notice } from "../notices.ts";
import { formatCount, formatUtc } from "./format.ts";
import { KeyTable } from "./keys.tsx";
import { COPY_KEY_SCRIPT_PATH, Layout } from "./layout.tsx";
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

function NewKey({ value, index }: { value: string; index: number }) {
  const id = `new-key-${index}`;
  return (
    <section class="new-key" aria-labelledby={`${id}-label`}>
      <label id={`${id}-label`} for={id}>
        Your new API key
      </label>
      <div class="copy-row">
        <input id={id} type="text" readonly value={value} data-testid="new-key" />
        <button
          type="button"
          class="secondary"
          data-copy-from={id}
          data-copy-status={`${id}-status`}
          hidden
        >
          Copy
        </button>
      </div>
      <p class="hint" id={`${id}-status`} role="status" />
      <p>
        Copy it now and keep it somewhere safe: click the field, select all (Ctrl+A, or ⌘A on a Mac)
        and copy (Ctrl+C or ⌘C). <strong>It will not be shown again</strong>; afterwards this page
        shows only its last four characters.
      </p>
    </section>
  );
}

/** What the last form did: a new key (its only showing, with a copy button), or what became of one. */
function NoticeView({ notice, index }: { notice: Notice; index: number }) {
  if (notice.kind === "key-created") return <NewKey value={notice.key} index={index} />;
  if (notice.kind === "key-revoked") {
    return (
      <p class="notice">
        The key ending …{notice.lastFour} is revoked: requests with it are refused from now on.
      </p>
    );
  }
  return (
    <>
      <p class="notice">
        The old key ending …{notice.oldLastFour} keeps working until{" "}
        {formatUtc(new Date(notice.graceEndsAt))}, then is refused. Switch your clients to the new
        key before then.
      </p>
      <NewKey value={notice.key} index={index} />
    </>
  );
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
      {error && <p class="error">{error}</p>}
      {notices.map((notice, index) => (
        <NoticeView notice={notice} index={index} />
      ))}
      {notices.some((notice) => notice.kind !== "key-revoked") && (
        <script src={COPY_KEY_SCRIPT_PATH} defer />
      )}

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
      <form method="post" action="/dashboard/keys">
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <button type="submit">Create a key</button>
      </form>
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
      {webhooks.length === 0 ? (
        <p>You have no webhook endpoints.</p>
      ) : (
        <WebhookTable webhooks={webhooks} csrf={csrf} />
      )}
      <p class="muted">
        Endpoints receive your events as they happen. Pause, resume and test them here; register,
        change and delete them with the API (<code>POST /v1/webhooks</code>,{" "}
        <code>{"PATCH /v1/webhooks/{webhookId}"}</code>); each one's deliveries are listed at{" "}
        <code>{"GET /v1/webhooks/{webhookId}/deliveries"}</code>.
      </p>
    </Layout>
  );
}
