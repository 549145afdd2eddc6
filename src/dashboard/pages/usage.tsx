import type { KeyRow } from "../../keys/keys.queries.ts";
import type { AccountUsage, KeyUsage } from "../account-usage.ts";
import type { UsagePoint, UsageSeries } from "../usage-series.ts";
import { formatCount, formatQuantity, nounFor } from "./format.ts";
import { ColumnHeads } from "./layout.tsx";

interface UsageChartProps {
  /** Unique on the page: the chart's accessible name and description hang on it. */
  id: string;
  title: string;
  points: UsagePoint[];
  unit: "hour" | "day";
}

// The drawing's own coordinates; the SVG scales to its column's width.
const WIDTH = 400;
const HEIGHT = 190;
const PLOT = { left: 44, right: 384, top: 12, bottom: 146 };
const PLOT_HEIGHT = PLOT.bottom - PLOT.top;

const compact = new Intl.NumberFormat("en-US", { notation: "compact" });
const dayMonth = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  timeZone: "UTC",
});

/** The smallest of 1, 2, 5, 10, 20, 50 … at or above the value: the top of the scale. */
function niceCeiling(value: number): number {
  if (value <= 1) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((factor) => factor * magnitude >= value) ?? 10;
  return step * magnitude;
}

function hourLabel(start: number): string {
  return `${new Date(start).toISOString().slice(11, 13)}:00`;
}

/** How a point is named in its tooltip and in the table. */
function pointName(point: UsagePoint, unit: UsageChartProps["unit"]): string {
  const date = new Date(point.start).toISOString().slice(0, 10);
  if (unit === "day") return date;
  const next = hourLabel(point.start + 3_600_000);
  return `${date} ${hourLabel(point.start)}–${next === "00:00" ? "24:00" : next} UTC`;
}

/** Hours are labelled at 00, 06, 12 and 18; days every seventh, counting back from today. */
function axisLabel(point: UsagePoint, index: number, count: number, unit: UsageChartProps["unit"]) {
  if (unit === "hour") {
    return new Date(point.start).getUTCHours() % 6 === 0 ? hourLabel(point.start) : undefined;
  }
  return (count - 1 - index) % 7 === 0 ? dayMonth.format(point.start) : undefined;
}

function summary(points: UsagePoint[], unit: UsageChartProps["unit"]): string {
  const total = points.reduce((sum, point) => sum + point.count, 0);
  if (total === 0) return "No requests in this period.";
  const busiest = points.reduce((top, point) => (point.count > top.count ? point : top));
  return `${formatQuantity(total, "request")} in all; the busiest ${unit}, ${pointName(busiest, unit)}, had ${formatQuantity(busiest.count, "request")}.`;
}

/**
 * Requests per hour or per day as a bar chart drawn on the server: inline
 * SVG with axis labels, a title and a summary for screen readers, and the
 * numbers as a table for anyone who wants them exactly.
 */
function UsageChart({ id, title, points, unit }: UsageChartProps) {
  const top = niceCeiling(Math.max(0, ...points.map((point) => point.count)));
  const ticks = top % 2 === 0 ? [0, top / 2, top] : [0, top];
  const band = (PLOT.right - PLOT.left) / Math.max(1, points.length);
  const y = (value: number) => PLOT.bottom - (value / top) * PLOT_HEIGHT;
  const description = summary(points, unit);
  const axisTitle = unit === "hour" ? "Hour (UTC)" : "Day (UTC)";
  return (
    <figure class="chart" data-testid={`chart-${id}`}>
      <figcaption>{title}</figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
        xmlns="http://www.w3.org/2000/svg"
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        {ticks.map((tick) => (
          <g class="tick">
            <line x1={PLOT.left} x2={PLOT.right} y1={y(tick)} y2={y(tick)} />
            <text x={PLOT.left - 6} y={y(tick) + 4} text-anchor="end">
              {compact.format(tick)}
            </text>
          </g>
        ))}
        {points.map((point, index) => {
          if (point.count === 0) return null;
          // A bar is never thinner than a hairline, so a single request still shows.
          const height = Math.max(1.5, (point.count / top) * PLOT_HEIGHT);
          return (
            <rect
              class="bar"
              x={(PLOT.left + index * band + band * 0.15).toFixed(1)}
              y={(PLOT.bottom - height).toFixed(1)}
              width={(band * 0.7).toFixed(1)}
              height={height.toFixed(1)}
              data-start={new Date(point.start).toISOString()}
              data-count={point.count}
            >
              <title>{`${pointName(point, unit)}: ${formatQuantity(point.count, "request")}`}</title>
            </rect>
          );
        })}
        <line class="axis" x1={PLOT.left} x2={PLOT.right} y1={PLOT.bottom} y2={PLOT.bottom} />
        {points.map((point, index) => {
          const label = axisLabel(point, index, points.length, unit);
          return (
            label && (
              <text
                class="x-label"
                x={(PLOT.left + (index + 0.5) * band).toFixed(1)}
                y={PLOT.bottom + 16}
                text-anchor="middle"
              >
                {label}
              </text>
            )
          );
        })}
        <text
          class="axis-title"
          x={(PLOT.left + PLOT.right) / 2}
          y={HEIGHT - 6}
          text-anchor="middle"
        >
          {axisTitle}
        </text>
        <text
          class="axis-title"
          transform={`translate(12 ${(PLOT.top + PLOT.bottom) / 2}) rotate(-90)`}
          text-anchor="middle"
        >
          Requests
        </text>
      </svg>
      <p class="muted">{description}</p>
      <details>
        <summary>The numbers</summary>
        <table class="numbers">
          <ColumnHeads names={[axisTitle, "Requests"]} />
          <tbody>
            {points.map((point) => (
              <tr>
                <td>{pointName(point, unit)}</td>
                <td>{formatCount(point.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

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

/** The same charts for each key, folded away until asked for; keys without requests say so. */
export function KeyUsageSection({ keys, usage }: { keys: KeyRow[]; usage: Map<string, KeyUsage> }) {
  const shown = keys.filter((key) => usage.has(key.hash));
  if (shown.length === 0) return null;
  return (
    <section aria-labelledby="key-usage-heading">
      <h2 id="key-usage-heading">Usage by key</h2>
      {shown.map((key) => {
        const keyUsage = usage.get(key.hash);
        const total = keyUsage?.history.daily.reduce((sum, day) => sum + day.count, 0) ?? 0;
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
