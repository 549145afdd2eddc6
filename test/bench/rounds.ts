import { type LoadSettings, measure, type Sample, type Target, warmUp } from "./measure.ts";

export interface RoundSettings extends LoadSettings {
  rounds: number;
  warmupSeconds: number;
}

/** One load of a round: a target, and for a floor loaded beside an endpoint, that endpoint. */
export interface Slot {
  target: Target;
  besideEndpoint?: string;
}

/** Whether a target is loaded in this round (0-based): every round, or its first `rounds`. */
const inRound = (target: Target, round: number) => round < (target.rounds ?? Infinity);

/** Every target once, in an order that rotates each round so none always runs first or last. */
function rotatedPlan(targets: Target[], round: number): Slot[] {
  const loaded = targets.filter((target) => inRound(target, round));
  return loaded.map((_, i) => ({ target: loaded[(i + round) % loaded.length] as Target }));
}

/**
 * Every endpoint right beside its own loads of its floors, so each ratio
 * compares loads seconds apart and the machine's slower minutes fall on
 * both. With one floor, the floor comes first in one round and second in the
 * next; with two, the endpoint sits between them and they swap sides. Floors
 * no endpoint names load alone, first. The endpoints' order rotates each
 * round; an endpoint past its rounds is left out, with its floors.
 */
export function pairedPlan(targets: Target[], round: number): Slot[] {
  const byId = (id: string) => {
    const floor = targets.find((target) => target.isFloor && target.id === id);
    if (!floor) throw new Error(`no floor target ${id}`);
    return floor;
  };
  const endpoints = targets.filter((target) => (target.floors ?? []).length > 0);
  const named = new Set(endpoints.flatMap((endpoint) => endpoint.floors ?? []));
  const plan: Slot[] = targets
    .filter((target) => target.isFloor && !named.has(target.id) && inRound(target, round))
    .map((target) => ({ target }));
  const loaded = endpoints.filter((endpoint) => inRound(endpoint, round));
  for (const [i] of loaded.entries()) {
    const endpoint = loaded[(i + round) % loaded.length] as Target;
    const floors = (endpoint.floors ?? []).map(byId);
    const beside = (floor: Target): Slot => ({ target: floor, besideEndpoint: endpoint.id });
    const [first, ...rest] = round % 2 === 0 ? floors : [...floors].reverse();
    const slots: Slot[] =
      floors.length === 1 && round % 2 === 1
        ? [{ target: endpoint }, ...floors.map(beside)]
        : [...(first ? [beside(first)] : []), { target: endpoint }, ...rest.map(beside)];
    plan.push(...slots);
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
      if (round === 0) await warmUp(target, { ...loadSettings, durationSeconds: warmupSeconds });
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

/** Seconds of load `measureRounds` gives the targets: each slot's warm-up once, then every round's slots. */
export function loadSeconds(
  targets: Target[],
  settings: RoundSettings,
  options: { paired?: boolean } = {},
): number {
  const slots = (round: number) => planOf(targets, round, options.paired).length;
  let seconds = slots(0) * settings.warmupSeconds;
  for (let round = 0; round < settings.rounds; round++) {
    seconds += slots(round) * settings.durationSeconds;
  }
  return seconds;
}
