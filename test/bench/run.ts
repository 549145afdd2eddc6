/**
 * `npm run bench`: serves the real Worker and a floor fixture with
 * `wrangler dev`, loads each target with autocannon in interleaved rounds and
 * prints the medians, also written to .bench/ as JSON for comparing runs.
 * Options: --rounds 9 --duration 2 --warmup 2 --connections 16; each
 * endpoint is loaded beside its own load of its floor in every round. Many
 * short rounds rather than a few long ones: here a ratio moves about as
 * much between loads of 1.5 s as between loads of 3 s, so more pairs make a
 * steadier median in the same time.
 *
 * `npm run bench -- --scale`: how the cost grows with the table and the
 * number of keys, and what auth and limits cost against the same routes
 * without them (see scale-run.ts); JSON and an SVG chart go to .bench/.
 * Options as above (defaults --rounds 3 --duration 4 --warmup 1), plus
 * --sizes 1000,100000,1000000 --keys 1,100,10000 for a smaller run.
 */
import { randomBytes } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { buildReferenceAssets } from "../../src/cli/reference-assets.ts";
import { parseBenchOptions } from "./bench-options.ts";
import { buildTargets, probe } from "./measure.ts";
import {
  formatTable,
  gitRevision,
  machine,
  type Report,
  summarise,
  writeReport,
} from "./report.ts";
import { measureRounds } from "./rounds.ts";
import { runScale } from "./scale-run.ts";
import { applyMigrations, createBenchKey, seedPets } from "./seed.ts";
import { seedOrderAnimals } from "./seed-orders.ts";
import {
  bundle,
  type DevServer,
  FLOOR_CONFIG,
  makeStateDir,
  ROOT,
  runBounded,
  startDevServers,
  stopAll,
} from "./servers.ts";

const { settings, scale, deadlineMs } = parseBenchOptions(process.argv.slice(2));

const t0 = performance.now();
const log = (message: string) =>
  process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0)}s] ${message}\n`);

const startedAt = new Date().toISOString();
const benchDir = path.join(ROOT, ".bench");
/** This run's bundles and server logs; removed unless something failed. */
const runDir = path.join(benchDir, `run-${startedAt.replace(/[:.]/g, "-")}`);
/** The servers' D1 and Durable Object state, removed however the run ends. */
let stateDir: string | undefined;

async function runDefault(state: string): Promise<void> {
  const apiState = path.join(state, "api");
  const floorState = path.join(state, "floor");
  const servers: DevServer[] = [];
  try {
    log("bundling both Workers, applying migrations, seeding animals to order");
    await buildReferenceAssets(ROOT);
    const [apiScript, floorScript] = await Promise.all([
      bundle(path.join(ROOT, "wrangler.toml"), path.join(runDir, "api-bundle")),
      bundle(FLOOR_CONFIG, path.join(runDir, "floor-bundle")),
      applyMigrations(apiState, floorState).then(() => seedOrderAnimals(apiState, floorState)),
    ]);
    // This run's own operator token, so the bench key is made through the admin endpoint.
    const adminToken = randomBytes(24).toString("base64url");

    log("starting wrangler dev for the API and the floor");
    servers.push(
      ...(await startDevServers([
        {
          name: "api",
          config: path.join(ROOT, "wrangler.toml"),
          script: apiScript,
          persistTo: apiState,
          logFile: path.join(runDir, "api.log"),
          readyPath: "/health",
          vars: { LOG_LEVEL: "warn", ADMIN_TOKEN: adminToken },
        },
        {
          name: "floor",
          config: FLOOR_CONFIG,
          script: floorScript,
          persistTo: floorState,
          logFile: path.join(runDir, "floor.log"),
          readyPath: "/static",
        },
      ])),
    );
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
    const samples = await measureRounds(targets, settings, log, { paired: true });

    const report: Report = {
      startedAt,
      finishedAt: new Date().toISOString(),
      settings,
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
  } finally {
    await stopAll(servers);
  }
}

/** Either run, with this run's directory kept only when something failed; its state never. */
async function main(): Promise<void> {
  await mkdir(runDir, { recursive: true });
  stateDir = await makeStateDir();
  let keepRunDir = true;
  try {
    if (scale) await runScale(scale, { startedAt, benchDir, runDir, stateDir, log });
    else await runDefault(stateDir);
    keepRunDir = false;
  } finally {
    await rm(stateDir, { recursive: true, force: true });
    if (keepRunDir) log(`logs kept in ${path.relative(ROOT, runDir)}`);
    else await rm(runDir, { recursive: true, force: true });
  }
}

await runBounded(main, { deadlineMs, log, dirs: () => ({ state: stateDir, run: runDir }) });
