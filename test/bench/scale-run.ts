import { randomBytes } from "node:crypto";
import path from "node:path";
import { buildReferenceAssets } from "../../src/cli/reference-assets.ts";
import { makeKeys } from "./bench-keys.ts";
import { measure, probe, type Target } from "./measure.ts";
import { growPets } from "./pets-table.ts";
import { gitRevision, machine, summarise } from "./report.ts";
import { loadsPerRound, measureRounds, type RoundSettings, secondsPerLoad } from "./rounds.ts";
import {
  formatScaleTable,
  type PhaseAxis,
  type ScalePhase,
  type ScaleReport,
  writeScaleReport,
} from "./scale-report.ts";
import {
  endpointTargets,
  keysPhrase,
  listingTargets,
  mixTargets,
  type Origins,
} from "./scale-targets.ts";
import { applyMigrationsTo } from "./seed.ts";
import {
  bundle,
  type DevServer,
  type DevServerOptions,
  FLOOR_CONFIG,
  NO_AUTH_CONFIG,
  ROOT,
  startDevServers,
  stopAll,
} from "./servers.ts";
import { workerdUsage } from "./workerd-usage.ts";

export interface ScaleOptions {
  settings: RoundSettings;
  /** Table sizes, grown one after another in this (ascending) order. */
  sizes: number[];
  /** Distinct key counts, made one after another in this (ascending) order. */
  keyCounts: number[];
}

export interface RunContext {
  startedAt: string;
  benchDir: string;
  /** This run's bundles and logs. */
  runDir: string;
  /** The servers' D1 and Durable Object state. */
  stateDir: string;
  log: (message: string) => void;
}

/**
 * Get, create and each mix load right beside their floors at no extra cost:
 * one floor each. The listings share theirs, which pairing would load four
 * times a round.
 */
const pairedPhase = (axis: PhaseAxis): boolean => axis !== "size";

/**
 * Seconds of load the options ask for, warm-ups included, counted from the
 * targets and plans the phases will use; the setup comes on top.
 */
export function loadSeconds(options: ScaleOptions): number {
  const origins: Origins = { api: "", noAuth: "", floor: "" };
  const phases: [PhaseAxis, Target[]][] = [
    ...options.sizes.map((size): [PhaseAxis, Target[]] => [
      "size",
      listingTargets(origins, "", size),
    ]),
    ["endpoints", endpointTargets(origins, "", 1)],
    ...options.keyCounts.map((_, i): [PhaseAxis, Target[]] => [
      "keys",
      mixTargets(origins, [], 1, i > 0 ? [] : undefined),
    ]),
  ];
  const loads = phases.reduce(
    (sum, [axis, targets]) => sum + loadsPerRound(targets, { paired: pairedPhase(axis) }),
    0,
  );
  return loads * secondsPerLoad(options.settings);
}

interface Fleet {
  origins: Origins;
  api: DevServer;
  adminToken: string;
  /** Each Worker's wrangler config with its D1 state, so all three tables grow alike. */
  tables: { config: string; persistTo: string }[];
}

async function startFleet(context: RunContext, servers: DevServer[]): Promise<Fleet> {
  const { runDir, stateDir, log } = context;
  // This run's own operator token, so its keys are made through the admin endpoint.
  const adminToken = randomBytes(24).toString("base64url");
  const state = (name: string) => path.join(stateDir, name);
  const workers: Omit<DevServerOptions, "script" | "persistTo" | "logFile">[] = [
    {
      name: "api",
      config: path.join(ROOT, "wrangler.toml"),
      readyPath: "/health",
      vars: { LOG_LEVEL: "warn", ADMIN_TOKEN: adminToken },
    },
    { name: "floor", config: FLOOR_CONFIG, readyPath: "/static" },
    { name: "no-auth", config: NO_AUTH_CONFIG, readyPath: "/health" },
  ];
  log("bundling the API and both floor fixtures, applying migrations");
  await buildReferenceAssets(ROOT);
  const options = await Promise.all(
    workers.map(async (worker): Promise<DevServerOptions> => {
      const [script] = await Promise.all([
        bundle(worker.config, path.join(runDir, `${worker.name}-bundle`)),
        applyMigrationsTo(worker.config, state(worker.name)),
      ]);
      const logFile = path.join(runDir, `${worker.name}.log`);
      return { ...worker, script, persistTo: state(worker.name), logFile };
    }),
  );
  log("starting wrangler dev for the API and the two floors");
  const started = await startDevServers(options);
  servers.push(...started);
  const [api, floor, noAuth] = started;
  if (!api || !floor || !noAuth) throw new Error("a server did not start");
  return {
    origins: { api: api.origin, floor: floor.origin, noAuth: noAuth.origin },
    api,
    adminToken,
    tables: options.map(({ config, persistTo }) => ({ config, persistTo })),
  };
}

/**
 * Runs one phase: its setup (growing the table, making keys), then the
 * rounds, reading the API workerd's memory and open files around both.
 */
async function runPhase(
  fleet: Fleet,
  context: RunContext,
  settings: RoundSettings,
  phase: { axis: PhaseAxis; title: string; animals: number; keys: number },
  setup: () => Promise<Target[]>,
): Promise<ScalePhase> {
  const { log } = context;
  log(`phase: ${phase.title}`);
  const start = await workerdUsage(fleet.api.processGroup);
  const setupStarted = performance.now();
  const targets = await setup();
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  const ready = await workerdUsage(fleet.api.processGroup);
  for (const target of targets) await probe(target);
  const progress = (message: string) => log(`${phase.title}: ${message}`);
  const paired = pairedPhase(phase.axis);
  const samples = await measureRounds(targets, settings, progress, { paired });
  const end = await workerdUsage(fleet.api.processGroup);
  return {
    ...phase,
    setupSeconds,
    apiWorkerd: { start, ready, end },
    rows: summarise(targets, samples),
    samples,
  };
}

/** Sends each key one request of the mix, so none is measured cold. */
async function warmEachKey(target: Target, keyCount: number, settings: RoundSettings) {
  // autocannon needs at least one request per connection.
  const connections = Math.min(settings.connections, keyCount);
  const { durationSeconds } = settings;
  const sample = await measure(target, { connections, durationSeconds, requests: keyCount }, 0);
  if (sample.unexpected + sample.errors > 0) {
    throw new Error(
      `warming ${keyCount} keys: ${sample.unexpected} unexpected, ${sample.errors} errors`,
    );
  }
}

/**
 * `npm run bench -- --scale`: listings against table size, get and create
 * against the same routes without auth, and the realistic mix against the
 * number of distinct keys, all in one run; prints every phase's table and
 * writes the JSON and an SVG chart to .bench/.
 */
export async function runScale(options: ScaleOptions, context: RunContext): Promise<void> {
  const { log } = context;
  const { settings } = options;
  const servers: DevServer[] = [];
  try {
    const fleet = await startFleet(context, servers);
    const keys: string[] = [];
    await makeKeys(fleet.origins.api, fleet.adminToken, keys, 1, log);
    const firstKey = keys[0] ?? "";
    const phases: ScalePhase[] = [];
    let animals = 0;

    for (const size of options.sizes) {
      const title = `${size.toLocaleString("en-US")} animals`;
      const phase = { axis: "size" as const, title, animals: size, keys: 1 };
      const grownFrom = animals;
      phases.push(
        await runPhase(fleet, context, settings, phase, async () => {
          log(`growing all three tables from ${grownFrom} to ${size} animals`);
          await Promise.all(
            fleet.tables.map((t) => growPets(t.config, t.persistTo, grownFrom, size)),
          );
          return listingTargets(fleet.origins, firstKey, size);
        }),
      );
      animals = size;
    }

    // After the listings: creates add animals past the last page those measured.
    const largestId = animals;
    phases.push(
      await runPhase(
        fleet,
        context,
        settings,
        { axis: "endpoints", title: "get and create with one key", animals, keys: 1 },
        async () => endpointTargets(fleet.origins, firstKey, largestId),
      ),
    );

    let fewerKeys: string[] | undefined;
    for (const keyCount of options.keyCounts) {
      const title = `mix from ${keysPhrase(keyCount)}`;
      const phase = { axis: "keys" as const, title, animals, keys: keyCount };
      phases.push(
        await runPhase(fleet, context, settings, phase, async () => {
          log(`making keys up to ${keyCount}, through POST /admin/keys`);
          await makeKeys(fleet.origins.api, fleet.adminToken, keys, keyCount, log);
          const targets = mixTargets(fleet.origins, keys.slice(0, keyCount), largestId, fewerKeys);
          const apiMix = targets.find((t) => t.id === "mix");
          if (apiMix) {
            log(`warming ${keysPhrase(keyCount)}, one request each`);
            await warmEachKey(apiMix, keyCount, settings);
          }
          return targets;
        }),
      );
      fewerKeys = keys.slice(0, keyCount);
    }

    const report: ScaleReport = {
      kind: "scale",
      startedAt: context.startedAt,
      finishedAt: new Date().toISOString(),
      settings: { ...settings, sizes: options.sizes, keyCounts: options.keyCounts },
      machine: machine(),
      git: gitRevision(),
      phases,
    };
    const files = await writeScaleReport(context.benchDir, report);
    process.stdout.write(
      `\n${formatScaleTable(report)}\n\nwritten to ${path.relative(ROOT, files.json)}` +
        ` and ${path.relative(ROOT, files.svg)}\n`,
    );
    const bad = phases.some((p) => p.rows.some((row) => row.unexpectedResponses + row.errors > 0));
    if (bad)
      throw new Error("some requests failed or got an unexpected status; see the bad column");
  } finally {
    await stopAll(servers);
  }
}
