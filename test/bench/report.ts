import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { LoadSettings, Sample, Target } from "./measure.ts";

export interface Row {
  target: string;
  label: string;
  floor: string | null;
  rounds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Endpoint throughput as a share of its floor's (1 = as fast as the floor). */
  throughputVsFloor: number | null;
  /** Endpoint median latency as a multiple of its floor's. */
  p50VsFloor: number | null;
  unexpectedResponses: number;
  errors: number;
}

export interface Report {
  startedAt: string;
  finishedAt: string;
  settings: LoadSettings & { rounds: number; warmupSeconds: number };
  machine: { node: string; cpus: number; loadAverage: number[] };
  git: string | null;
  rows: Row[];
  samples: Sample[];
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Medians over the rounds per target, and each endpoint against the floor it is named with. */
export function summarise(targets: Target[], samples: Sample[]): Row[] {
  const rows = targets.map((target): Row => {
    const mine = samples.filter((sample) => sample.target === target.id);
    const sum = (pick: (sample: Sample) => number) => mine.reduce((a, s) => a + pick(s), 0);
    return {
      target: target.id,
      label: target.label,
      floor: target.floor ?? null,
      rounds: mine.length,
      requestsPerSecond: median(mine.map((s) => s.requestsPerSecond)),
      p50Ms: median(mine.map((s) => s.p50Ms)),
      p99Ms: median(mine.map((s) => s.p99Ms)),
      throughputVsFloor: null,
      p50VsFloor: null,
      unexpectedResponses: sum((s) => s.unexpected),
      errors: sum((s) => s.errors),
    };
  });
  for (const row of rows) {
    const floorTarget = targets.find((t) => t.isFloor !== undefined && t.isFloor === row.floor);
    const floor = rows.find((r) => r.target === floorTarget?.id);
    if (!floor) continue;
    row.throughputVsFloor = row.requestsPerSecond / floor.requestsPerSecond;
    row.p50VsFloor = row.p50Ms / floor.p50Ms;
  }
  return rows;
}

function cells(row: Row): string[] {
  const ratio = (value: number | null, digits: number) =>
    value === null ? "—" : value.toFixed(digits);
  return [
    row.label,
    row.requestsPerSecond.toFixed(0),
    row.p50Ms.toFixed(1),
    row.p99Ms.toFixed(1),
    ratio(row.throughputVsFloor, 2),
    ratio(row.p50VsFloor, 2),
    String(row.unexpectedResponses + row.errors),
  ];
}

/** The one table, medians over the rounds; ratios compare endpoints with their floor. */
export function formatTable(report: Report): string {
  const header = ["target", "req/s", "p50 ms", "p99 ms", "req/s ÷ floor", "p50 × floor", "bad"];
  const body = report.rows.map(cells);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ");
  const { rounds, connections, durationSeconds, warmupSeconds } = report.settings;
  return [
    `medians of ${rounds} rounds, ${connections} connections, ${durationSeconds} s each after ${warmupSeconds} s warm-up`,
    line(header),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...body.map(line),
    "reads are compared with the read floor, the create with the create floor, the order",
    "flow (two requests per adoption: order, complete) with the order floor;",
    "bad = responses with another status than expected, plus connection errors.",
  ].join("\n");
}

export async function writeReport(directory: string, report: Report): Promise<string> {
  await mkdir(directory, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, "-");
  const file = path.join(directory, `bench-${stamp}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
