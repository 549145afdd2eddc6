import type { AccountUsage, KeyUsage } from "../../accounts/account-usage.ts";
import type { UsageSeries } from "../../accounts/usage-series.ts";
import type { KeyRow } from "../../keys/keys.queries.ts";
import { formatCount, formatQuantity, nounFor } from "./format.ts";
import { UsageChart } from "./usage-chart.tsx";

/** The two charts; `of` names whose requests they count when it is not the whole account. */
function UsageCharts({ id, series, of }: { id: string; series: UsageSeries; of?: string }) {
  const prefix = of ? `${of}: requests` : "Requests";
  return (
    <div class="charts">
      <UsageChart
        id={`${id}-hourly`}
        title={`${prefix} per hour, last 24 hours`}
        points={series.hourly}
        unit="hour"
      />
      <UsageChart
        id={`${id}-daily`}
        title={`${prefix} per day, last 30 days`}
        points={series.daily}
        unit="day"
      />
    </div>
  );
}

/** The account's requests now, today, and over the last 24 hours and 30 days, all keys together. */
export function AccountUsageSection({ usage }: { usage: AccountUsage }) {
  return (
    <section aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage</h2>
      <p>
        This minute: <strong data-testid="usage-minute">{formatCount(usage.minute)}</strong>{" "}
        {nounFor(usage.minute, "request")}. Today (UTC):{" "}
        <strong data-testid="usage-day">{formatCount(usage.day)}</strong>{" "}
        {nounFor(usage.day, "request")}. Totals over all your keys.
      </p>
      <UsageCharts id="account" series={usage.history} />
    </section>
  );
}

function monthTotal(usage: KeyUsage | undefined): number {
  return usage?.history.daily.reduce((sum, day) => sum + day.count, 0) ?? 0;
}

/** The same charts for each key, folded away until asked for; keys without requests say so. */
export function KeyUsageSection({ keys, usage }: { keys: KeyRow[]; usage: Map<string, KeyUsage> }) {
  const shown = keys.filter((key) => usage.has(key.hash));
  if (shown.length === 0) return null;
  return (
    <section aria-labelledby="key-usage-heading">
      <h2 id="key-usage-heading">Usage by key</h2>
      {shown.map((key) => {
        const keyUsage = usage.get(key.hash);
        const total = monthTotal(keyUsage);
        return (
          <details class="key-usage" data-usage-of={key.lastFour}>
            <summary>
              <code>…{key.lastFour}</code>: {formatQuantity(total, "request")} in the last 30 days
            </summary>
            {keyUsage && total > 0 ? (
              <UsageCharts
                id={`key-${key.lastFour}-${key.hash.slice(0, 8)}`}
                series={keyUsage.history}
                of={`Key …${key.lastFour}`}
              />
            ) : (
              <p class="muted">No requests with this key in the last 30 days.</p>
            )}
          </details>
        );
      })}
    </section>
  );
}
