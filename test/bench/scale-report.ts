import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Sample } from "./measure.ts";
import { describeSettings, formatRows, type Machine, type Row } from "./report.ts";
import type { RoundSettings } from "./rounds.ts";
import { formatNearVerdicts } from "./scale-near-report.ts";
import { PROFILE_FINDERS, PROFILE_TARGET } from "./scale-targets.ts";
import { formatFirstSizeVerdicts } from "./scale-verdicts.ts";
import { type ChartPanel, type ChartSeries, renderChart } from "./svg-chart.ts";
import { formatUsage, type WorkerdUsage } from "./workerd-usage.ts";

/** What a phase varies: the table's size, the number of distinct keys, or neither (endpoints). */
export type PhaseAxis = "size" | "keys" | "endpoints";

export interface ScalePhase {
  axis: PhaseAxis;
  title: string;
  /** Animals in the API's table while this phase was measured. */
  animals: number;
  /** Distinct keys the API's traffic used in this phase. */
  keys: number;
  /** Seconds spent growing the table or making and warming keys before measuring. */
  setupSeconds: number;
  /** The API's workerd: at the phase's start, after its setup, after its rounds. */
  apiWorkerd: { start: WorkerdUsage; ready: WorkerdUsage; end: WorkerdUsage };
  rows: Row[];
  samples: Sample[];
  /** At the largest size: D1's rows read for the animals' first page near a place, the API's way and the straightforward way. */
  nearRowsRead?: { indexed: number; straightforward: number };
}

export interface ScaleReport {
  kind: "scale";
  startedAt: string;
  finishedAt: string;
  settings: RoundSettings & { sizes: number[]; keyCounts: number[] };
  machine: Machine;
  git: string | null;
  phases: ScalePhase[];
}

/** The API's listings, drawn against the table's size. */
const LISTINGS = ["list-first", "list-last", "list-status-first", "list-status-last"];
const LISTING_FLOORS = ["floor-list-first"];
/** Series whose rows are named after one phase ("mix from 100 keys") get a name for all of them. */
const SERIES_LABELS: Record<string, string> = { mix: "the mix, each request with the next key" };

type Metric = "requestsPerSecond" | "p99Ms";

const xOf = (phase: ScalePhase) => (phase.axis === "keys" ? phase.keys : phase.animals);

/** One target across the phases of one axis: the median at each x and its rounds' spread. */
function seriesOf(phases: ScalePhase[], target: string, metric: Metric): ChartSeries | null {
  const points = phases.flatMap((phase) => {
    const row = phase.rows.find((r) => r.target === target);
    const values = phase.samples.filter((s) => s.target === target).map((s) => s[metric]);
    if (!row || values.length === 0) return [];
    return [{ x: xOf(phase), y: row[metric], low: Math.min(...values), high: Math.max(...values) }];
  });
  const label =
    SERIES_LABELS[target] ??
    phases.flatMap((phase) => phase.rows).find((r) => r.target === target)?.label;
  return label && points.length > 0 ? { label, points } : null;
}

function panel(
  phases: ScalePhase[],
  targets: string[],
  floors: string[],
  metric: Metric,
  labels: { title: string; xLabel: string },
): ChartPanel {
  return {
    ...labels,
    yLabel: metric === "requestsPerSecond" ? "requests/s" : "p99 latency (ms)",
    series: targets.flatMap((t) => seriesOf(phases, t, metric) ?? []),
    references: floors.flatMap((f) => seriesOf(phases, f, metric) ?? []),
  };
}

/** Requests/s and p99 against table size and against distinct keys, floors as dashed lines. */
export function scaleChart(report: ScaleReport): string {
  const bySize = report.phases.filter((p) => p.axis === "size");
  const byKeys = report.phases.filter((p) => p.axis === "keys");
  const sizeAxis = "animals in the table (log scale)";
  const keyAxis = "distinct keys, used in turn (log scale)";
  const panels = [
    ...(bySize.length > 0
      ? [
          panel(bySize, LISTINGS, LISTING_FLOORS, "requestsPerSecond", {
            title: "Listings: requests/s against table size",
            xLabel: sizeAxis,
          }),
          panel(bySize, LISTINGS, LISTING_FLOORS, "p99Ms", {
            title: "Listings: p99 latency against table size",
            xLabel: sizeAxis,
          }),
        ]
      : []),
    ...(byKeys.length > 0
      ? [
          panel(byKeys, ["mix"], ["floor-mix"], "requestsPerSecond", {
            title: "Mix (70% list, 20% create, 10% get): requests/s against keys",
            xLabel: keyAxis,
          }),
          panel(byKeys, ["mix"], ["floor-mix"], "p99Ms", {
            title: "Mix: p99 latency against keys",
            xLabel: keyAxis,
          }),
        ]
      : []),
  ];
  const { connections, durationSeconds, rounds } = report.settings;
  return renderChart(
    "Pet Store API under scale: npm run bench -- --scale",
    [
      `${report.startedAt} · ${report.git ?? "no git"} · ${rounds} rounds of ${durationSeconds} s, ${connections} connections · ${report.machine.cpus} CPUs`,
      "points: medians of the rounds, bars: their min–max · dashed: floors, the median of their rounds in each phase (one loaded in a single phase spans the axis)",
    ],
    panels,
  );
}

function formatPhase(phase: ScalePhase): string[] {
  const { start, ready, end } = phase.apiWorkerd;
  return [
    "",
    `== ${phase.title} (setup ${phase.setupSeconds.toFixed(0)} s) ==`,
    `API workerd at start:  ${formatUsage(start)}`,
    `API workerd when ready: ${formatUsage(ready)}`,
    `API workerd at end:    ${formatUsage(end)}`,
    ...formatRows(phase.rows),
  ];
}

/**
 * Each profile filter's first page at the largest size against the same
 * page at the first, held to PROFILE_TARGET: met when the median reaches
 * it, "within noise" when only the spread does.
 */
export function formatProfileVerdicts(report: ScaleReport): string[] {
  const ids = PROFILE_FINDERS.map(({ id }) => `list-${id}`);
  return formatFirstSizeVerdicts(report, "profile filters' first pages", ids, PROFILE_TARGET);
}

/** Every phase's table with the API's memory and open files around it. */
export function formatScaleTable(report: ScaleReport): string {
  return [
    describeSettings(report.settings),
    ...report.phases.flatMap(formatPhase),
    ...formatProfileVerdicts(report),
    ...formatNearVerdicts(report),
    "",
    "listings at the first size are compared with the same listing on the floor, and at each",
    "later size with the same listing on a second API whose table stays at the first size; get,",
    "create and the mix from the first key count with the same requests on the floor, and the mix",
    "from each later count with the mix from the count before it; each loads right beside what it",
    "is compared with. The ratio is the median of the per-round ratios, (min–max) their spread",
    "over the rounds, i.e. the noise band; CPU is the Worker's workerd's per answered request;",
    "bad = responses with another status than expected, plus connection errors.",
  ].join("\n");
}

/** Writes the report as JSON and its chart as SVG beside it; returns both paths. */
export async function writeScaleReport(
  directory: string,
  report: ScaleReport,
): Promise<{ json: string; svg: string }> {
  await mkdir(directory, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, "-");
  const json = path.join(directory, `scale-${stamp}.json`);
  const svg = path.join(directory, `scale-${stamp}.svg`);
  await writeFile(json, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(svg, scaleChart(report));
  return { json, svg };
}
