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

/** An endpoint against one of its floors, per round, loaded right beside it. */
export interface Comparison {
  floor: string;
  floorLabel: string;
  /** The floor's own medians over its loads beside this endpoint. */
  floorRequestsPerSecond: number;
  floorCpuMsPerRequest: number | null;
  floorResidentMiB: number | null;
  /**
   * Endpoint throughput as a share of the floor's (1 = as fast as the floor):
   * the median over rounds of the ratio within each round.
   */
  throughput: number;
  /** The per-round throughput ratios' spread: the noise band of `throughput`. */
  throughputBand: Band;
  /** Endpoint median latency as a multiple of the floor's, median of the per-round ratios. */
  p50: number;
  /** The endpoint Worker's CPU per request as a multiple of the floor Worker's, and its spread. */
  cpu: number | null;
  cpuBand: Band | null;
}

/** One target's medians over its rounds and, for an endpoint, how it compares with each floor. */
export interface Row {
  target: string;
  label: string;
  rounds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Its server's Worker: CPU per answered request, and memory after its loads (medians). */
  cpuMsPerRequest: number | null;
  residentMiB: number | null;
  comparisons: Comparison[];
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
  settings: LoadSettings & { rounds: number; otherRounds?: number; warmupSeconds: number };
  machine: Machine;
  git: string | null;
  rows: Row[];
  samples: Sample[];
  /** Resident memory of each server's Worker workerd once every load is done. */
  residentAfter: { api: number; floor: number };
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
function perRoundRatios(
  mine: Sample[],
  floor: Sample[],
  pick: (sample: Sample) => number | undefined,
): number[] {
  return mine.flatMap((sample) => {
    const sameRound = floor.filter((f) => f.round === sample.round);
    const floorSample =
      sameRound.find((f) => f.besideEndpoint === sample.target) ??
      sameRound.find((f) => f.besideEndpoint === undefined);
    const [value, floorValue] = [pick(sample), floorSample && pick(floorSample)];
    return value === undefined || floorValue === undefined ? [] : [value / floorValue];
  });
}

const bandOf = (values: number[]): Band => ({ min: Math.min(...values), max: Math.max(...values) });

/** The median of what was measured, or null when nothing was. */
function medianOf(samples: Sample[], pick: (sample: Sample) => number | undefined): number | null {
  const values = samples.flatMap((sample) => pick(sample) ?? []);
  return values.length === 0 ? null : median(values);
}

/** Medians over the rounds per target, and each endpoint against each floor it is named with. */
export function summarise(targets: Target[], samples: Sample[]): Row[] {
  const samplesOf = (id: string) => samples.filter((sample) => sample.target === id);
  const compare = (endpoint: Target, floor: Target): Comparison | [] => {
    const mine = samplesOf(endpoint.id);
    const all = samplesOf(floor.id);
    const beside = all.filter((f) => f.besideEndpoint === endpoint.id);
    const floorSamples = beside.length > 0 ? beside : all;
    const throughput = perRoundRatios(mine, all, (s) => s.requestsPerSecond);
    if (throughput.length === 0) return [];
    const cpu = perRoundRatios(mine, all, (s) => s.cpuMsPerRequest);
    return {
      floor: floor.id,
      floorLabel: floor.label,
      floorRequestsPerSecond: median(floorSamples.map((s) => s.requestsPerSecond)),
      floorCpuMsPerRequest: medianOf(floorSamples, (s) => s.cpuMsPerRequest),
      floorResidentMiB: medianOf(floorSamples, (s) => s.residentMiB),
      throughput: median(throughput),
      throughputBand: bandOf(throughput),
      p50: median(perRoundRatios(mine, all, (s) => s.p50Ms)),
      cpu: cpu.length === 0 ? null : median(cpu),
      cpuBand: cpu.length === 0 ? null : bandOf(cpu),
    };
  };
  return targets.map((target): Row => {
    const mine = samplesOf(target.id);
    const sum = (pick: (sample: Sample) => number) => mine.reduce((a, s) => a + pick(s), 0);
    const floors = (target.floors ?? []).flatMap((id) => targets.find((t) => t.id === id) ?? []);
    return {
      target: target.id,
      label: target.label,
      rounds: mine.length,
      requestsPerSecond: median(mine.map((s) => s.requestsPerSecond)),
      p50Ms: median(mine.map((s) => s.p50Ms)),
      p99Ms: median(mine.map((s) => s.p99Ms)),
      cpuMsPerRequest: medianOf(mine, (s) => s.cpuMsPerRequest),
      residentMiB: medianOf(mine, (s) => s.residentMiB),
      comparisons: floors.flatMap((floor) => compare(target, floor)),
      unexpectedResponses: sum((s) => s.unexpected),
      errors: sum((s) => s.errors),
    };
  });
}

const fixed = (value: number | null, digits: number) =>
  value === null ? "—" : value.toFixed(digits);
const withBand = (value: number | null, band: Band | null) =>
  fixed(value, 2) + (band ? ` (${band.min.toFixed(2)}–${band.max.toFixed(2)})` : "");

/**
 * Rows as aligned text lines: a header, a rule, then a line per endpoint and
 * floor it is held to, and one per floor no endpoint names. A floor named by
 * an endpoint shows in that endpoint's lines; its bad count in the last column.
 */
export function formatRows(rows: Row[]): string[] {
  const header = [
    "endpoint",
    "req/s",
    "p99 ms",
    "floor",
    "req/s",
    "÷ floor (rounds)",
    "CPU ms",
    "floor",
    "CPU × floor (rounds)",
    "MiB",
    "floor",
    "bad",
  ];
  const byId = new Map(rows.map((row) => [row.target, row]));
  const named = new Set(rows.flatMap((row) => row.comparisons.map((c) => c.floor)));
  const bad = (row: Row | undefined) => (row ? row.unexpectedResponses + row.errors : 0);
  const own = (row: Row) => [row.label, row.requestsPerSecond.toFixed(0), row.p99Ms.toFixed(1)];
  const body = rows.flatMap((row): string[][] => {
    if (row.comparisons.length === 0) {
      if (named.has(row.target)) return [];
      const [cpu, memory] = [fixed(row.cpuMsPerRequest, 3), fixed(row.residentMiB, 0)];
      return [[...own(row), "—", "", "", cpu, "", "", memory, "", String(bad(row))]];
    }
    return row.comparisons.map((c) => [
      ...own(row),
      c.floorLabel,
      c.floorRequestsPerSecond.toFixed(0),
      withBand(c.throughput, c.throughputBand),
      fixed(row.cpuMsPerRequest, 3),
      fixed(c.floorCpuMsPerRequest, 3),
      withBand(c.cpu, c.cpuBand),
      fixed(row.residentMiB, 0),
      fixed(c.floorResidentMiB, 0),
      String(bad(row) + bad(byId.get(c.floor))),
    ]);
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const leftAligned = new Set([0, 3]);
  const line = (row: string[]) =>
    row
      .map((cell, i) =>
        leftAligned.has(i) ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0),
      )
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)];
}

/** What the settings line above each table says. */
export function describeSettings(settings: Report["settings"]): string {
  const { rounds, otherRounds, connections, durationSeconds, warmupSeconds } = settings;
  const fewer =
    otherRounds === undefined || otherRounds >= rounds
      ? ""
      : ` (${otherRounds} for the other rows)`;
  return `medians of ${rounds} rounds${fewer}, ${connections} connections, ${durationSeconds} s each after ${warmupSeconds} s warm-up`;
}

/** The one table, medians over the rounds; ratios compare endpoints with their floors. */
export function formatTable(report: Report): string {
  const { api, floor } = report.residentAfter;
  return [
    describeSettings(report.settings),
    ...formatRows(report.rows),
    "Each endpoint is held to its floors: a bare Worker running the endpoint's own statements",
    "and object calls at the same path. ÷ floor is the median of the per-round throughput",
    "ratios, each against the floor's load right beside it, (min–max) their spread over the",
    "rounds; CPU is the Worker's workerd's per answered request, from idle to idle around the",
    "load, and × floor its per-round ratio; MiB the Worker's workerd's resident memory after",
    "the loads. A flow's requests (an order, then its completion) count one by one.",
    "bad = responses with another status than expected, plus connection errors.",
    `After the bench the API's Worker holds ${api.toFixed(0)} MiB, the floor's ${floor.toFixed(0)} MiB.`,
  ].join("\n");
}

export async function writeReport(directory: string, report: Report): Promise<string> {
  await mkdir(directory, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, "-");
  const file = path.join(directory, `bench-${stamp}.json`);
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
