import { type LoadSettings, load, measure, type Sample, type Target } from "./measure.ts";

export interface RoundSettings extends LoadSettings {
  rounds: number;
  warmupSeconds: number;
}

/** One load of a round: a target, and for a floor loaded beside an endpoint, that endpoint. */
export interface Slot {
  target: Target;
  besideEndpoint?: string;
}

/** Every target once, in an order that rotates each round so none always runs first or last. */
function rotatedPlan(targets: Target[], round: number): Slot[] {
  return targets.map((_, i) => ({ target: targets[(i + round) % targets.length] as Target }));
}

/**
 * Every endpoint right beside its own load of its floor (the floor first in
 * one round, second in the next), so each ratio compares two loads seconds
 * apart and the machine's slower minutes fall on both; floors no endpoint
 * names (static JSON) load alone. The endpoints' order rotates each round.
 */
export function pairedPlan(targets: Target[], round: number): Slot[] {
  const floorOf = (name: string | undefined) =>
    targets.find((target) => target.isFloor !== undefined && target.isFloor === name);
  const endpoints = targets.filter((target) => target.floor !== undefined);
  const plan: Slot[] = targets
    .filter(
      (target) =>
        target.isFloor !== undefined && !endpoints.some((e) => floorOf(e.floor) === target),
    )
    .map((target) => ({ target }));
  for (const [i] of endpoints.entries()) {
    const endpoint = endpoints[(i + round) % endpoints.length] as Target;
    const floor = floorOf(endpoint.floor);
    if (!floor) throw new Error(`${endpoint.label}: no floor target named ${endpoint.floor}`);
    const pair: Slot[] = [{ target: floor, besideEndpoint: endpoint.id }, { target: endpoint }];
    plan.push(...(round % 2 === 0 ? pair : pair.reverse()));
  }
  return plan;
}

/**
 * Loads the targets round after round, each after its own warm-up in the
 * first round. By default every target loads once per round and an endpoint's
 * ratio uses its floor's load of the same round; `paired` gives each
 * endpoint its own adjacent floor load instead, for ratios the machine's
 * noise moves less.
 */
export async function measureRounds(
  targets: Target[],
  settings: RoundSettings,
  log: (message: string) => void,
  options: { paired?: boolean } = {},
): Promise<Sample[]> {
  const { rounds, warmupSeconds, ...loadSettings } = settings;
  const samples: Sample[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const { target, besideEndpoint } of planOf(targets, round, options.paired)) {
      // Later rounds find the servers warm: a Durable Object that slept while
      // other targets loaded wakes in milliseconds, nothing a second notices.
      if (round === 0) await load(target, { ...loadSettings, durationSeconds: warmupSeconds });
      const sample = await measure(target, loadSettings, round + 1);
      if (besideEndpoint) sample.besideEndpoint = besideEndpoint;
      samples.push(sample);
      log(
        `round ${round + 1}/${rounds} ${target.label}${besideEndpoint ? ` (beside ${besideEndpoint})` : ""}: ` +
          `${sample.requestsPerSecond.toFixed(0)} req/s, p50 ${sample.p50Ms} ms, p99 ${sample.p99Ms} ms` +
          (sample.unexpected + sample.errors > 0
            ? `, ${sample.unexpected} unexpected, ${sample.errors} errors`
            : ""),
      );
    }
  }
  return samples;
}

function planOf(targets: Target[], round: number, paired = false): Slot[] {
  return paired ? pairedPlan(targets, round) : rotatedPlan(targets, round);
}

/** Seconds of load one slot of a round gets from `measureRounds`: its warm-up once, then every round. */
export function secondsPerLoad(settings: RoundSettings): number {
  return settings.warmupSeconds + settings.rounds * settings.durationSeconds;
}

/** Loads per round of `measureRounds`: every target once, or paired, lone floors and two per endpoint. */
export function loadsPerRound(targets: Target[], options: { paired?: boolean } = {}): number {
  return planOf(targets, 0, options.paired).length;
}
