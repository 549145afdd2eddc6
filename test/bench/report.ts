import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { LoadSettings, Sample, Target } from "./measure.ts";
import { ROOT } from "./servers.ts";

/** The lowest and highest value over the rounds: how far the machine's noise moved a number. */
export interface Band {
  min: number;
  max: number;
}

export interface Row {
  target: string;
  label: string;
  floor: string | null;
  rounds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /**
   * Endpoint throughput as a share of its floor's (1 = as fast as the floor):
   * the median over rounds of the ratio within each round.
   */
  throughputVsFloor: number | null;
  /** The per-round throughput ratios' spread: the noise band of throughputVsFloor. */
  throughputVsFloorBand: Band | null;
  /** Endpoint median latency as a multiple of its floor's, median of the per-round ratios. */
  p50VsFloor: number | null;
  unexpectedResponses: number;
  errors: number;
}

export interface Machine {
  node: string;
  cpus: number;
  loadAverage: number[];
}

export interface Report {
  startedAt: string;
  finishedAt: string;
  settings: LoadSettings & { rounds: number; warmupSeconds: number };
  machine: Machine;
  git: string | null;
  rows: Row[];
  samples: Sample[];
}

export function machine(): Machine {
  return { node: process.version, cpus: os.cpus().length, loadAverage: os.loadavg() };
}

/** The measured commit, marked -dirty when the work tree has changes. */
export function gitRevision(): string | null {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT }).toString();
    const dirty = execFileSync("git", ["status", "--porcelain"], { cwd: ROOT }).length > 0;
    return `${head.trim()}${dirty ? "-dirty" : ""}`;
  } catch {
    return null;
  }
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * Each round's value of the endpoint divided by its floor's, for rounds where
 * both were measured: the floor's load beside this endpoint when the rounds
 * were paired, else the floor's one load of the round.
 */
function perRoundRatios(mine: Sample[], floor: Sample[], pick: (sample: Sample) => number) {
  return mine.flatMap((sample) => {
    const sameRound = floor.filter((f) => f.round === sample.round);
    const floorSample =
      sameRound.find((f) => f.besideEndpoint === sample.target) ??
      sameRound.find((f) => f.besideEndpoint === undefined);
    return floorSample ? [pick(sample) / pick(floorSample)] : [];
  });
}

/** Medians over the rounds per target, and each endpoint against the floor it is named with. */
export function summarise(targets: Target[], samples: Sample[]): Row[] {
  const samplesOf = (id: string | undefined) => samples.filter((sample) => sample.target === id);
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
      throughputVsFloorBand: null,
      p50VsFloor: null,
      unexpectedResponses: sum((s) => s.unexpected),
      errors: sum((s) => s.errors),
    };
  });
  for (const row of rows) {
    const floorTarget = targets.find((t) => t.isFloor !== undefined && t.isFloor === row.floor);
    const floor = samplesOf(floorTarget?.id);
    const mine = samplesOf(row.target);
    const throughput = perRoundRatios(mine, floor, (s) => s.requestsPerSecond);
    if (throughput.length === 0) continue;
    row.throughputVsFloor = median(throughput);
    row.throughputVsFloorBand = { min: Math.min(...throughput), max: Math.max(...throughput) };
    row.p50VsFloor = median(perRoundRatios(mine, floor, (s) => s.p50Ms));
  }
  return rows;
}

function cells(row: Row): string[] {
  const ratio = (value: number | null, digits: number) =>
    value === null ? "—" : value.toFixed(digits);
  const band = row.throughputVsFloorBand;
  return [
    row.label,
    row.requestsPerSecond.toFixed(0),
    row.p50Ms.toFixed(1),
    row.p99Ms.toFixed(1),
    ratio(row.throughputVsFloor, 2) +
      (band ? ` (${band.min.toFixed(2)}–${band.max.toFixed(2)})` : ""),
    ratio(row.p50VsFloor, 2),
    String(row.unexpectedResponses + row.errors),
  ];
}

/** Rows as aligned text lines: a header, a rule, one line per target. */
export function formatRows(rows: Row[]): string[] {
  const header = [
    "target",
    "req/s",
    "p50 ms",
    "p99 ms",
    "req/s ÷ floor (rounds)",
    "p50 × floor",
    "bad",
  ];
  const body = rows.map(cells);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)];
}

/** What the settings line above each table says. */
export function describeSettings(settings: Report["settings"]): string {
  const { rounds, connections, durationSeconds, warmupSeconds } = settings;
  return `medians of ${rounds} rounds, ${connections} connections, ${durationSeconds} s each after ${warmupSeconds} s warm-up`;
}

/** The one table, medians over the rounds; ratios compare endpoints with their floor. */
export function formatTable(report: Report): string {
  return [
    describeSettings(report.settings),
    ...formatRows(report.rows),
    "reads are compared with the read floor, the create with the create floor, the order flow",
    "(two requests per adoption: order, complete) with the order floor; the ratio is the",
    "median of the per-round ratios, each against the floor's load beside it when the",
    "rounds are paired, (min–max) their spread over the rounds;",
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
