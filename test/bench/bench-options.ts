import { parseArgs } from "node:util";
import { buildTargets } from "./measure.ts";
import { loadsPerRound, type RoundSettings, secondsPerLoad } from "./rounds.ts";
import { loadSeconds, type ScaleOptions } from "./scale-run.ts";

export interface BenchOptions {
  settings: RoundSettings;
  /** Set for `--scale`: what to grow and how far. */
  scale: ScaleOptions | null;
  /** Hard stop for the whole run, whatever hangs. */
  deadlineMs: number;
}

function ascendingCounts(list: string, name: string): number[] {
  const counts = list.split(",").filter(Boolean).map(Number);
  const ascending = counts.every((n, i) => Number.isInteger(n) && n > (counts[i - 1] ?? 0));
  if (!ascending || counts.length === 0) {
    throw new Error(`--${name} takes ascending positive whole numbers, e.g. 1000,10000`);
  }
  return counts;
}

/**
 * The command line of `npm run bench`. The scale run's defaults are shorter
 * per load because it has many more loads; both refuse settings whose load
 * alone would not leave time for setup before the deadline.
 */
export function parseBenchOptions(args: string[]): BenchOptions {
  const { values } = parseArgs({
    args,
    options: {
      scale: { type: "boolean", default: false },
      rounds: { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string", default: "16" },
      sizes: { type: "string", default: "1000,100000,1000000" },
      keys: { type: "string", default: "1,100,10000" },
    },
  });
  const settings: RoundSettings = {
    rounds: Number(values.rounds ?? (values.scale ? "3" : "9")),
    durationSeconds: Number(values.duration ?? (values.scale ? "4" : "2")),
    warmupSeconds: Number(values.warmup ?? (values.scale ? "1" : "2")),
    connections: Number(values.connections),
  };
  const { rounds, durationSeconds, warmupSeconds, connections } = settings;
  if (![rounds, durationSeconds, warmupSeconds, connections].every((n) => n > 0)) {
    throw new Error("--rounds, --duration, --warmup and --connections must be positive numbers");
  }
  if (!values.scale) {
    const budget =
      loadsPerRound(buildTargets("", "", ""), { paired: true }) * secondsPerLoad(settings);
    if (budget > 240)
      throw new Error(`${budget} s of load would not fit the time limit; lower them`);
    return { settings, scale: null, deadlineMs: 360_000 };
  }
  const scale: ScaleOptions = {
    settings,
    sizes: ascendingCounts(values.sizes, "sizes"),
    keyCounts: ascendingCounts(values.keys, "keys"),
  };
  // Growing tables, making thousands of keys and starting servers need the rest of the deadline.
  const budget = loadSeconds(scale);
  if (budget > 480) throw new Error(`${budget} s of load would not fit the time limit; lower them`);
  return { settings, scale, deadlineMs: 900_000 };
}
