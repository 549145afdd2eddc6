import path from "node:path";
import { buildReferenceAssets } from "../../src/cli/reference-assets.ts";
import { makeKeys } from "./bench-keys.ts";
import { gatherSheltersSql } from "./bench-shelters.ts";
import { measure, probe, type Target } from "./measure.ts";
import { growPets, sheltersFor } from "./pets-table.ts";
import { gitRevision, machine, summarise } from "./report.ts";
import { loadSeconds, measureRounds, type RoundSettings } from "./rounds.ts";
import { NEAR_CITY, nearRowsRead, nearTargets } from "./scale-near-targets.ts";
import {
  formatScaleTable,
  type PhaseAxis,
  type ScalePhase,
  type ScaleReport,
  writeScaleReport,
} from "./scale-report.ts";
import {
  endpointTargets,
  type FirstSizeApi,
  keysPhrase,
  listingTargets,
  mixTargets,
  type Origins,
} from "./scale-targets.ts";
import { applyMigrationsTo, executeSql, prepareFloorCallers } from "./seed.ts";
import {
  API_CONFIG,
  apiSecrets,
  bundle,
  type DevServer,
  type DevServerOptions,
  FLOOR_SCRIPT,
  metered,
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

/** The finders' first pages are loaded at the largest size, beside the first size's. */
const findersAt = (sizes: number[], i: number) => ({ finders: i > 0 && i === sizes.length - 1 });

/** A size's listings, and at the largest the pages near a place too. */
function sizeTargets(
  origins: Origins,
  key: string,
  size: number,
  firstSize: FirstSizeApi | undefined,
  at: { finders: boolean },
): Target[] {
  return [
    ...listingTargets(origins, key, size, firstSize, at),
    ...(firstSize && at.finders ? nearTargets(origins, key, firstSize) : []),
  ];
}

/** Stand-in for a server's origin where only the number of targets matters. */
const nowhere = { origin: "", key: "" };

/**
 * Seconds of load the options ask for, warm-ups included, counted from the
 * targets and plans the phases will use; the setup comes on top.
 */
export function scaleLoadSeconds(options: ScaleOptions): number {
  const origins: Origins = { api: "", floor: "" };
  const [firstSize = 0] = options.sizes;
  const phases: Target[][] = [
    ...options.sizes.map((size, i) =>
      sizeTargets(
        origins,
        "",
        size,
        i > 0 ? { ...nowhere, size: firstSize } : undefined,
        findersAt(options.sizes, i),
      ),
    ),
    endpointTargets(origins, "", 1),
    ...options.keyCounts.map((_, i) => mixTargets(origins, [], 1, i > 0 ? [] : undefined)),
  ];
  return phases.reduce(
    (sum, targets) => sum + loadSeconds(targets, options.settings, { paired: true }),
    0,
  );
}

interface Fleet {
  origins: Origins;
  api: DevServer;
  /** Every server, so each target's Worker is metered. */
  servers: DevServer[];
  adminToken: string;
  /** Where the API's and the floor's D1 state is, so both tables grow alike. */
  tables: string[];
  /** With more than one size: a second API whose table grows to the first size only. */
  firstSize?: { origin: string; table: string };
}

async function startFleet(
  context: RunContext,
  servers: DevServer[],
  options: ScaleOptions,
): Promise<Fleet> {
  const { runDir, stateDir, log } = context;
  // This run's own operator token, so its keys are made through the admin endpoint.
  const secrets = apiSecrets();
  const adminToken = secrets.ADMIN_TOKEN;
  const state = (name: string) => path.join(stateDir, name);
  const api = { readyPath: "/health", vars: { LOG_LEVEL: "warn", ...secrets } };
  const workers: (Omit<DevServerOptions, "script" | "persistTo" | "logFile" | "config"> & {
    entry?: string;
  })[] = [
    { name: "api", ...api },
    {
      name: "floor",
      entry: FLOOR_SCRIPT,
      readyPath: "/v1/pets?limit=1",
      vars: { LOG_LEVEL: "warn" },
    },
    ...(options.sizes.length > 1 ? [{ name: "api-first-size", ...api }] : []),
  ];
  log(`bundling and migrating ${workers.map((worker) => worker.name).join(", ")}`);
  await buildReferenceAssets(ROOT);
  const serverOptions = await Promise.all(
    workers.map(async ({ entry, ...worker }): Promise<DevServerOptions> => {
      const [script] = await Promise.all([
        bundle(API_CONFIG, path.join(runDir, `${worker.name}-bundle`), entry),
        applyMigrationsTo(state(worker.name)).then(async () => {
          if (entry === FLOOR_SCRIPT) await prepareFloorCallers(state(worker.name));
        }),
      ]);
      const logFile = path.join(runDir, `${worker.name}.log`);
      return { ...worker, config: API_CONFIG, script, persistTo: state(worker.name), logFile };
    }),
  );
  log("starting wrangler dev for each");
  const started = await startDevServers(serverOptions);
  servers.push(...started);
  const [apiServer, floor, firstSize] = started;
  if (!apiServer || !floor) throw new Error("a server did not start");
  const tables = serverOptions.map(({ persistTo }) => persistTo);
  const firstSizeTable = tables[2];
  return {
    origins: { api: apiServer.origin, floor: floor.origin },
    api: apiServer,
    servers: started,
    adminToken,
    tables: tables.slice(0, 2),
    ...(firstSize && firstSizeTable
      ? { firstSize: { origin: firstSize.origin, table: firstSizeTable } }
      : {}),
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
  const targets = metered(await setup(), fleet.servers);
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  const ready = await workerdUsage(fleet.api.processGroup);
  for (const target of targets) await probe(target);
  const progress = (message: string) => log(`${phase.title}: ${message}`);
  const samples = await measureRounds(targets, settings, progress, { paired: true });
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
 * against their floors, and the realistic mix against the
 * number of distinct keys, all in one run; prints every phase's table and
 * writes the JSON and an SVG chart to .bench/.
 */
export async function runScale(options: ScaleOptions, context: RunContext): Promise<void> {
  const { log } = context;
  const { settings } = options;
  const servers: DevServer[] = [];
  try {
    const fleet = await startFleet(context, servers, options);
    const keys: string[] = [];
    await makeKeys(fleet.origins.api, fleet.adminToken, keys, 1, log);
    const firstKey = keys[0] ?? "";
    const firstSizeKeys: string[] = [];
    if (fleet.firstSize) {
      await makeKeys(fleet.firstSize.origin, fleet.adminToken, firstSizeKeys, 1, log);
    }
    const phases: ScalePhase[] = [];
    const [firstSizeAnimals = 0] = options.sizes;
    // Each table's shelters hold its last size's animals a hundred each, so a shelter's
    // first page finds as many at 10⁶ animals in 10⁴ shelters as at 10³ in 10.
    const shelters = sheltersFor(options.sizes.at(-1) ?? 0);
    const firstSizeShelters = sheltersFor(firstSizeAnimals);
    let animals = 0;

    for (const [i, size] of options.sizes.entries()) {
      const title = `${size.toLocaleString("en-US")} animals`;
      const phase = { axis: "size" as const, title, animals: size, keys: 1 };
      const grownFrom = animals;
      const tables = [
        ...fleet.tables.map((table) => ({ table, shelters })),
        ...(fleet.firstSize && i === 0
          ? [{ table: fleet.firstSize.table, shelters: firstSizeShelters }]
          : []),
      ];
      const firstSize =
        fleet.firstSize && i > 0
          ? { origin: fleet.firstSize.origin, key: firstSizeKeys[0] ?? "", size: firstSizeAnimals }
          : undefined;
      const at = findersAt(options.sizes, i);
      const measured = await runPhase(fleet, context, settings, phase, async () => {
        log(`growing ${tables.length} tables from ${grownFrom} to ${size} animals`);
        await Promise.all(tables.map((t) => growPets(t.table, grownFrom, size, t.shelters)));
        if (fleet.firstSize && i === 0) {
          log(`gathering the first size's shelters around ${NEAR_CITY.city}`);
          await executeSql(fleet.firstSize.table, gatherSheltersSql(NEAR_CITY));
        }
        return sizeTargets(fleet.origins, firstKey, size, firstSize, at);
      });
      const near = firstSize && at.finders ? await nearRowsRead(fleet.origins.floor) : undefined;
      phases.push(near ? { ...measured, nearRowsRead: near } : measured);
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
