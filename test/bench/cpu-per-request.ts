import { measure, type Target } from "./measure.ts";
import { type Band, median } from "./report.ts";
import type { RoundSettings } from "./rounds.ts";
import { workerCpuSeconds } from "./workerd-usage.ts";

/** Requests in each fixed load: enough that a 10 ms tick of CPU time is noise below 1%. */
export const CPU_LOAD_REQUESTS = 2_000;

/** What the Worker's workerd spent per request of one endpoint against the same route elsewhere. */
export interface CpuPerRequest {
  target: string;
  against: string;
  requestsPerLoad: number;
  rounds: number;
  /** Medians over the rounds, in milliseconds of CPU per request. */
  targetMs: number;
  againstMs: number;
  /** The median of the per-round ratios, target over against, and their spread. */
  ratio: number;
  ratioBand: Band;
}

interface Measured {
  target: Target;
  processGroup: number;
}

/** One fixed load of `requests` requests, and the CPU milliseconds per request it cost the Worker. */
async function cpuMsPerRequest(
  { target, processGroup }: Measured,
  settings: RoundSettings,
  round: number,
): Promise<number> {
  const before = await workerCpuSeconds(processGroup);
  const sample = await measure(target, { ...settings, requests: CPU_LOAD_REQUESTS }, round);
  const after = await workerCpuSeconds(processGroup);
  if (sample.unexpected + sample.errors > 0 || sample.requests < CPU_LOAD_REQUESTS) {
    throw new Error(
      `${target.id}: ${sample.requests} of ${CPU_LOAD_REQUESTS} answered, ${sample.unexpected} unexpected, ${sample.errors} errors`,
    );
  }
  return ((after - before) * 1000) / sample.requests;
}

/**
 * The same fixed number of requests to each server in turn, round after
 * round (the order swapped every round), reading the CPU time of the workerd
 * that runs each Worker before and after: CPU per request, which throughput
 * on a shared two-core machine only hints at.
 */
export async function measureCpuPerRequest(
  mine: Measured,
  against: Measured,
  settings: RoundSettings,
  log: (message: string) => void,
): Promise<CpuPerRequest> {
  const targetMs: number[] = [];
  const againstMs: number[] = [];
  for (let round = 0; round < settings.rounds; round++) {
    const order = round % 2 === 0 ? [mine, against] : [against, mine];
    for (const measured of order) {
      const ms = await cpuMsPerRequest(measured, settings, round);
      (measured === mine ? targetMs : againstMs).push(ms);
    }
    log(
      `CPU per request, round ${round + 1}: ${targetMs.at(-1)?.toFixed(3)} ms against ${againstMs.at(-1)?.toFixed(3)} ms`,
    );
  }
  const ratios = targetMs.map((ms, i) => ms / (againstMs[i] ?? Number.NaN));
  return {
    target: mine.target.id,
    against: against.target.id,
    requestsPerLoad: CPU_LOAD_REQUESTS,
    rounds: settings.rounds,
    targetMs: median(targetMs),
    againstMs: median(againstMs),
    ratio: median(ratios),
    ratioBand: { min: Math.min(...ratios), max: Math.max(...ratios) },
  };
}

export function formatCpuPerRequest(cpu: CpuPerRequest): string {
  const { min, max } = cpu.ratioBand;
  return (
    `Worker CPU per request over ${cpu.rounds} × ${cpu.requestsPerLoad.toLocaleString("en-US")} requests: ` +
    `${cpu.target} ${cpu.targetMs.toFixed(3)} ms, ${cpu.against} ${cpu.againstMs.toFixed(3)} ms, ` +
    `ratio ${cpu.ratio.toFixed(2)} (${min.toFixed(2)}–${max.toFixed(2)})`
  );
}
