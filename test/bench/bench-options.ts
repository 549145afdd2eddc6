import { parseArgs } from "node:util";
import type { Target } from "./measure.ts";
import { PhotoPlaces } from "./photo-places.ts";
import { loadSeconds, type RoundSettings } from "./rounds.ts";
import type { BenchRow, Seeded } from "./row-kinds.ts";
import { rowTargets } from "./row-targets.ts";
import { ROWS } from "./rows.ts";
import { type ScaleOptions, scaleLoadSeconds } from "./scale-run.ts";
import { benchAnimalWalks } from "./seeded-animals.ts";

export interface BenchOptions {
  mode: "rows" | "scale" | "profile" | "webhooks" | "webhook-profile";
  settings: RoundSettings;
  /** Rounds of the rows of the other tier (the hot rows take `settings.rounds`). */
  otherRounds: number;
  /** Set for `--scale`: what to grow and how far. */
  scale: ScaleOptions | null;
  /** The rows measured (every row by default) or, for `--profile`, profiled (get, list, create). */
  rows: string[];
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

/** The rows with these ids, in the order of ROWS. */
export function rowsNamed(ids: readonly string[]): BenchRow[] {
  return ROWS.filter((row) => ids.includes(row.id));
}

/** The rows' targets with stand-ins for the servers, where only their number and rounds matter. */
export function plannedRowTargets(otherRounds: number, rows: readonly BenchRow[] = ROWS): Target[] {
  const seeded = (): Seeded => ({
    pets: [1],
    editable: [1],
    categories: [1],
    orders: [1],
    webhooks: [1, 2],
    deliveries: [1],
    ...benchAnimalWalks(),
    album: { petId: 1, photoIds: ["AAAAAAAAAAAAAAAAAAAAAA"] },
    photoPlaces: new PhotoPlaces([1]),
  });
  const send = async () => ({ status: 200, body: "[]" });
  const server = () => ({ origin: "", send, seeded: seeded() });
  const keys = { shopper: "", hooks: "" };
  return rowTargets(rows, { api: { ...server(), keys }, floor: server() }, otherRounds);
}

/**
 * Rounds the other rows take by default, the first that fits: fewer as rows
 * are added. Two still load each floor once on either side of its endpoint.
 */
const OTHER_ROUNDS = [5, 4, 3, 2];

/**
 * Most seconds of load each run may ask for: what is left of its hard stop
 * goes to setup (and, after the rows, the webhooks' delivery rate). The
 * rows' 520 s holds today's thirty other rows at two rounds (501 s),
 * and room for one more: at two rounds, a row of one floor adds
 * 10 s, of two floors 15 s. The scale run's 500 s holds its 497 s by
 * default: 462 s for the listings, finders, get and create and the mix at
 * three rounds, and 35 s for the pages near a place at two.
 */
const LOAD_BUDGET_SECONDS = { rows: 520, scale: 500 };

/**
 * The command line of `npm run bench`. The scale run's defaults are three
 * rounds of 2 s loads (3 s would not fit its budget with the finders' and
 * the profile filters' pages); each run refuses settings whose load alone
 * would not leave time for setup before the deadline.
 */
export function parseBenchOptions(args: string[]): BenchOptions {
  const { values } = parseArgs({
    args,
    options: {
      scale: { type: "boolean", default: false },
      profile: { type: "boolean", default: false },
      webhooks: { type: "boolean", default: false },
      rows: { type: "string" },
      rounds: { type: "string" },
      "other-rounds": { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string", default: "16" },
      sizes: { type: "string", default: "1000,100000,1000000" },
      keys: { type: "string", default: "1,100,10000" },
    },
  });
  if ([values.scale, values.profile, values.webhooks].filter(Boolean).length > 1) {
    if (values.scale || !values.profile || !values.webhooks) {
      throw new Error(
        "--scale, --profile and --webhooks are separate runs (but --webhooks --profile)",
      );
    }
  }
  const mode = values.scale
    ? "scale"
    : values.webhooks
      ? values.profile
        ? "webhook-profile"
        : "webhooks"
      : values.profile
        ? "profile"
        : "rows";
  const settings: RoundSettings = {
    rounds: Number(values.rounds ?? (mode === "scale" ? "3" : "9")),
    durationSeconds: Number(
      values.duration ??
        { rows: "2", scale: "2", profile: "4", webhooks: "2", "webhook-profile": "2" }[mode],
    ),
    warmupSeconds: Number(values.warmup ?? "1"),
    connections: Number(values.connections),
  };
  const rows = (values.rows ?? (mode === "profile" ? "get,list,create" : ""))
    .split(",")
    .filter(Boolean);
  const unknown = rows.filter((id) => !ROWS.some((row) => row.id === id));
  if (unknown.length > 0) throw new Error(`--rows: no row ${unknown.join(", ")}`);
  const measured = rows.length > 0 ? rowsNamed(rows) : ROWS;
  const rowSeconds = (otherRounds: number) =>
    loadSeconds(plannedRowTargets(otherRounds, measured), settings, { paired: true });
  // The most rounds (five at most, two at least) in which the other rows fit the budget.
  const otherRounds = Number(
    values["other-rounds"] ??
      OTHER_ROUNDS.find((n) => rowSeconds(n) <= LOAD_BUDGET_SECONDS.rows) ??
      OTHER_ROUNDS.at(-1),
  );
  const { rounds, durationSeconds, warmupSeconds, connections } = settings;
  if (![rounds, otherRounds, durationSeconds, warmupSeconds, connections].every((n) => n > 0)) {
    throw new Error(
      "--rounds, --other-rounds, --duration, --warmup and --connections must be positive numbers",
    );
  }
  const base = {
    mode,
    settings,
    otherRounds,
    scale: null,
    rows: measured.map((row) => row.id),
  } as const;
  if (mode === "profile" || mode === "webhooks" || mode === "webhook-profile") {
    return { ...base, deadlineMs: 600_000 };
  }
  if (mode === "rows") {
    const budget = rowSeconds(otherRounds);
    if (budget > LOAD_BUDGET_SECONDS.rows) {
      throw new Error(
        `${budget} s of load would not fit the time limit; lower them, or name fewer --rows`,
      );
    }
    // The delivery rate through `npm start` follows the rows: about a minute more.
    return { ...base, deadlineMs: 800_000 };
  }
  const scale: ScaleOptions = {
    settings,
    sizes: ascendingCounts(values.sizes, "sizes"),
    keyCounts: ascendingCounts(values.keys, "keys"),
  };
  // Growing tables, making thousands of keys and starting servers need the rest of the deadline.
  const budget = scaleLoadSeconds(scale);
  if (budget > LOAD_BUDGET_SECONDS.scale) {
    throw new Error(`${budget} s of load would not fit the time limit; lower them`);
  }
  return { ...base, scale, deadlineMs: 900_000 };
}
