/**
 * `npm run bench`: serves the real Worker and a floor fixture with
 * `wrangler dev`, loads each target with autocannon in interleaved rounds and
 * prints the medians, also written to .bench/ as JSON for comparing runs.
 * Options: --rounds 3 --duration 6 --warmup 3 --connections 16.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildReferenceAssets } from "../../src/cli/reference-assets.ts";
import { buildTargets, type LoadSettings, probe } from "./measure.ts";
import {
  formatTable,
  gitRevision,
  machine,
  type Report,
  summarise,
  writeReport,
} from "./report.ts";
import { measureRounds } from "./rounds.ts";
import { applyMigrations, createBenchKey, seedPets } from "./seed.ts";
import {
  bundle,
  type DevServer,
  FLOOR_CONFIG,
  killAllNow,
  ROOT,
  startDevServer,
  stopAll,
} from "./servers.ts";

/** Hard stop for the whole run, whatever hangs. */
const DEADLINE_MS = 290_000;

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "6" },
    warmup: { type: "string", default: "3" },
    connections: { type: "string", default: "16" },
  },
});
const rounds = Number(values.rounds);
const warmupSeconds = Number(values.warmup);
const settings: LoadSettings = {
  connections: Number(values.connections),
  durationSeconds: Number(values.duration),
};
const budget = rounds * 7 * (settings.durationSeconds + warmupSeconds);
if (![rounds, warmupSeconds, settings.connections, settings.durationSeconds].every((n) => n > 0)) {
  throw new Error("--rounds, --duration, --warmup and --connections must be positive numbers");
}
if (budget > 240) throw new Error(`${budget} s of load would not fit the time limit; lower them`);

const t0 = performance.now();
const log = (message: string) =>
  process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0)}s] ${message}\n`);

const startedAt = new Date().toISOString();
const benchDir = path.join(ROOT, ".bench");
/** This run's bundles, state and server logs; removed unless something failed. */
const runDir = path.join(benchDir, `run-${startedAt.replace(/[:.]/g, "-")}`);

async function main(): Promise<void> {
  const apiState = path.join(runDir, "api-state");
  const floorState = path.join(runDir, "floor-state");
  await mkdir(runDir, { recursive: true });
  const servers: DevServer[] = [];
  let keepRunDir = true;
  try {
    log("bundling both Workers, applying migrations");
    await buildReferenceAssets(ROOT);
    const [apiScript, floorScript] = await Promise.all([
      bundle(path.join(ROOT, "wrangler.toml"), path.join(runDir, "api-bundle")),
      bundle(FLOOR_CONFIG, path.join(runDir, "floor-bundle")),
      applyMigrations(apiState, floorState),
    ]);
    // This run's own operator token, so the bench key is made through the admin endpoint.
    const adminToken = randomBytes(24).toString("base64url");

    log("starting wrangler dev for the API and the floor");
    const starting = await Promise.allSettled([
      startDevServer({
        name: "api",
        config: path.join(ROOT, "wrangler.toml"),
        script: apiScript,
        persistTo: apiState,
        logFile: path.join(runDir, "api.log"),
        readyPath: "/health",
        vars: { LOG_LEVEL: "warn", ADMIN_TOKEN: adminToken },
      }),
      startDevServer({
        name: "floor",
        config: FLOOR_CONFIG,
        script: floorScript,
        persistTo: floorState,
        logFile: path.join(runDir, "floor.log"),
        readyPath: "/static",
      }),
    ]);
    for (const result of starting) if (result.status === "fulfilled") servers.push(result.value);
    const failed = starting.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    const [api, floor] = servers;
    if (!api || !floor) throw new Error("a server did not start");

    log("making the bench key, seeding pets through each server's create route");
    const key = await createBenchKey(api.origin, adminToken);
    await Promise.all([
      seedPets(`${api.origin}/v1/pets`, { Authorization: `Bearer ${key}` }),
      seedPets(`${floor.origin}/floor/create`, {}),
    ]);

    const targets = buildTargets(floor.origin, api.origin, key);
    for (const target of targets) await probe(target);

    const samples = await measureRounds(targets, { ...settings, rounds, warmupSeconds }, log);

    const report: Report = {
      startedAt,
      finishedAt: new Date().toISOString(),
      settings: { ...settings, rounds, warmupSeconds },
      machine: machine(),
      git: gitRevision(),
      rows: summarise(targets, samples),
      samples,
    };
    const file = await writeReport(benchDir, report);
    process.stdout.write(`\n${formatTable(report)}\n\nwritten to ${path.relative(ROOT, file)}\n`);
    const bad = report.rows.some((row) => row.unexpectedResponses + row.errors > 0);
    if (bad)
      throw new Error("some requests failed or got an unexpected status; see the bad column");
    keepRunDir = false;
  } finally {
    await stopAll(servers);
    if (keepRunDir) log(`logs and state kept in ${path.relative(ROOT, runDir)}`);
    else await rm(runDir, { recursive: true, force: true });
  }
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers`);
    killAllNow();
    rmSync(runDir, { recursive: true, force: true });
    process.exit(130);
  });
}
process.once("exit", killAllNow);
const deadline = setTimeout(() => {
  log(`gave up after ${DEADLINE_MS / 1000} s`);
  killAllNow();
  process.exit(1);
}, DEADLINE_MS);
deadline.unref();

try {
  await main();
} catch (error) {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
} finally {
  killAllNow();
}
