import { type LoadSettings, load, measure, type Sample, type Target } from "./measure.ts";

export interface RoundSettings extends LoadSettings {
  rounds: number;
  warmupSeconds: number;
}

/**
 * Loads every target once per round, each after its own short warm-up, in an
 * order that rotates each round so no target always runs first or last; a
 * floor and the endpoints compared with it share every round, so their
 * per-round ratio cancels what the machine did meanwhile.
 */
export async function measureRounds(
  targets: Target[],
  settings: RoundSettings,
  log: (message: string) => void,
): Promise<Sample[]> {
  const { rounds, warmupSeconds, ...loadSettings } = settings;
  const samples: Sample[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length]);
    for (const target of order) {
      if (!target) continue;
      const warmup = round === 0 ? warmupSeconds : Math.min(1, warmupSeconds);
      await load(target, { ...loadSettings, durationSeconds: warmup });
      const sample = await measure(target, loadSettings, round + 1);
      samples.push(sample);
      log(
        `round ${round + 1}/${rounds} ${target.label}: ${sample.requestsPerSecond.toFixed(0)} req/s, ` +
          `p50 ${sample.p50Ms} ms, p99 ${sample.p99Ms} ms` +
          (sample.unexpected + sample.errors > 0
            ? `, ${sample.unexpected} unexpected, ${sample.errors} errors`
            : ""),
      );
    }
  }
  return samples;
}
