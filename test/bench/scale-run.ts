import { randomBytes } from "node:crypto";
import path from "node:path";
import { buildReferenceAssets } from "../../src/cli/reference-assets.ts";
import { makeKeys } from "./bench-keys.ts";
import { measureCpuPerRequest } from "./cpu-per-request.ts";
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
 * Whether a phase loads each endpoint right beside its own floor load. Get,
 * create, each mix and the listings at a larger size have a floor each; the
 * first size's listings share theirs, which pairing would load four times a
 * round.
 */
const pairedPhase = (axis: PhaseAxis, sizeIndex = 0): boolean => axis !== "size" || sizeIndex > 0;

/** Stand-in for a server's origin where only the number of targets matters. */
const nowhere = { origin: "", key: "" };

/**
 * Seconds of load the options ask for, warm-ups included, counted from the
 * targets and plans the phases will use; the setup comes on top.
 */
export function loadSeconds(options: ScaleOptions): number {
  const origins: Origins = { api: "", noAuth: "", floor: "" };
  const [firstSize = 0] = options.sizes;
  const phases: [Target[], boolean][] = [
    ...options.sizes.map((size, i): [Target[], boolean] => [
      listingTargets(origins, "", size, i > 0 ? { ...nowhere, size: firstSize } : undefined),
      pairedPhase("size", i),
    ]),
    [endpointTargets(origins, "", 1), pairedPhase("endpoints")],
    ...options.keyCounts.map((_, i): [Target[], boolean] => [
      mixTargets(origins, [], 1, i > 0 ? [] : undefined),
      pairedPhase("keys"),
    ]),
  ];
  const loads = phases.reduce(
    (sum, [targets, paired]) => sum + loadsPerRound(targets, { paired }),
    0,
  );
  return loads * secondsPerLoad(options.settings);
}

interface Table {
  config: string;
  persistTo: string;
}

interface Fleet {
  origins: Origins;
  api: DevServer;
  noAuth: DevServer;
  adminToken: string;
  /** Each Worker's wrangler config with its D1 state, so all three tables grow alike. */
  tables: Table[];
  /** With more than one size: a second API whose table grows to the first size only. */
  firstSize?: { origin: string; table: Table };
}

async function startFleet(
  context: RunContext,
  servers: DevServer[],
  options: ScaleOptions,
): Promise<Fleet> {
  const { runDir, stateDir, log } = context;
  // This run's own operator token, so its keys are made through the admin endpoint.
  const adminToken = randomBytes(24).toString("base64url");
  const state = (name: string) => path.join(stateDir, name);
  const api = {
    config: path.join(ROOT, "wrangler.toml"),
    readyPath: "/health",
    vars: { LOG_LEVEL: "warn", ADMIN_TOKEN: adminToken },
  };
  const workers: Omit<DevServerOptions, "script" | "persistTo" | "logFile">[] = [
    { name: "api", ...api },
    { name: "floor", config: FLOOR_CONFIG, readyPath: "/static" },
    { name: "no-auth", config: NO_AUTH_CONFIG, readyPath: "/health" },
    ...(options.sizes.length > 1 ? [{ name: "api-first-size", ...api }] : []),
  ];
  log(`bundling and migrating ${workers.map((worker) => worker.name).join(", ")}`);
  await buildReferenceAssets(ROOT);
  const serverOptions = await Promise.all(
    workers.map(async (worker): Promise<DevServerOptions> => {
      const [script] = await Promise.all([
        bundle(worker.config, path.join(runDir, `${worker.name}-bundle`)),
        applyMigrationsTo(worker.config, state(worker.name)),
      ]);
      const logFile = path.join(runDir, `${worker.name}.log`);
      return { ...worker, script, persistTo: state(worker.name), logFile };
    }),
  );
  log("starting wrangler dev for each");
  const started = await startDevServers(serverOptions);
  servers.push(...started);
  const [apiServer, floor, noAuth, firstSize] = started;
  if (!apiServer || !floor || !noAuth) throw new Error("a server did not start");
  const tables = serverOptions.map(({ config, persistTo }) => ({ config, persistTo }));
  const firstSizeTable = tables[3];
  return {
    origins: { api: apiServer.origin, floor: floor.origin, noAuth: noAuth.origin },
    api: apiServer,
    noAuth,
    adminToken,
    tables: tables.slice(0, 3),
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
  phase: { axis: PhaseAxis; title: string; animals: number; keys: number; paired: boolean },
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
  const { paired, ...described } = phase;
  const samples = await measureRounds(targets, settings, progress, { paired });
  const end = await workerdUsage(fleet.api.processGroup);
  return {
    ...described,
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
    let animals = 0;

    for (const [i, size] of options.sizes.entries()) {
      const title = `${size.toLocaleString("en-US")} animals`;
      const paired = pairedPhase("size", i);
      const phase = { axis: "size" as const, title, animals: size, keys: 1, paired };
      const grownFrom = animals;
      const tables =
        fleet.firstSize && i === 0 ? [...fleet.tables, fleet.firstSize.table] : fleet.tables;
      const firstSize =
        fleet.firstSize && i > 0
          ? { origin: fleet.firstSize.origin, key: firstSizeKeys[0] ?? "", size: firstSizeAnimals }
          : undefined;
      phases.push(
        await runPhase(fleet, context, settings, phase, async () => {
          log(`growing ${tables.length} tables from ${grownFrom} to ${size} animals`);
          await Promise.all(tables.map((t) => growPets(t.config, t.persistTo, grownFrom, size)));
          return listingTargets(fleet.origins, firstKey, size, firstSize);
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
        {
          axis: "endpoints",
          title: "get and create with one key",
          animals,
          keys: 1,
          paired: pairedPhase("endpoints"),
        },
        async () => endpointTargets(fleet.origins, firstKey, largestId),
      ),
    );
    const endpoints = endpointTargets(fleet.origins, firstKey, largestId);
    const byId = (id: string) => {
      const target = endpoints.find((t) => t.id === id);
      if (!target) throw new Error(`no ${id} target`);
      return target;
    };
    log("phase: Worker CPU per request of get, with one key and without auth");
    const cpuPerRequest = await measureCpuPerRequest(
      { target: byId("get"), processGroup: fleet.api.processGroup },
      { target: byId("no-auth-get"), processGroup: fleet.noAuth.processGroup },
      settings,
      log,
    );

    let fewerKeys: string[] | undefined;
    for (const keyCount of options.keyCounts) {
      const title = `mix from ${keysPhrase(keyCount)}`;
      const phase = {
        axis: "keys" as const,
        title,
        animals,
        keys: keyCount,
        paired: pairedPhase("keys"),
      };
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
      cpuPerRequest,
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
