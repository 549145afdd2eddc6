/**
 * `npm run bench`: serves the real Worker and its floor (a bare Worker that
 * runs each endpoint's own storage calls and nothing else, floor/) with
 * `wrangler dev`, loads each row of rows.ts beside its floors in
 * interleaved rounds, reading each Worker's CPU and memory around every
 * load, and prints the medians, also written to .bench/ as JSON for
 * comparing runs. Options: --rows (ids; every row by default) --rounds 9
 * (the hot rows) --other-rounds 5 (down to 2 as rows are added)
 * --duration 2 --warmup 1 --connections 16. Many short rounds rather than a
 * few long ones: here a ratio moves about as much between loads of 1.5 s as
 * between loads of 3 s, so more pairs make a steadier median in the same time.
 *
 * Then the webhook delivery rate through `npm start` with 10 endpoints
 * (webhook-run.ts). `npm run bench -- --webhooks` runs all its scenarios
 * instead: a burst beside answering and beside hanging endpoints, a
 * backlog, and the rate.
 *
 * `npm run bench -- --scale`: how the cost grows with the table and the
 * number of keys, against the same floor (see scale-run.ts); JSON and an SVG
 * chart go to .bench/. Options as above (defaults --rounds 3 --duration 4),
 * plus --sizes 1000,100000,1000000 --keys 1,100,10000 for a smaller run.
 *
 * `npm run bench -- --profile`: where the time of some rows' endpoints and
 * floors goes, from a CPU profile of each Worker under load (profile.ts).
 * Options: --rows get,list,create --duration 4 --connections 16.
 */
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { parseBenchOptions, rowsNamed } from "./bench-options.ts";
import { profileRows } from "./profile.ts";
import {
  formatTable,
  gitRevision,
  machine,
  type Report,
  summarise,
  writeReport,
} from "./report.ts";
import { measureRounds } from "./rounds.ts";
import { type RowRunContext, startRowServers } from "./row-servers.ts";
import { runScale } from "./scale-run.ts";
import { makeStateDir, ROOT, runBounded } from "./servers.ts";
import { profileWebhooks } from "./webhook-profile.ts";
import { runDeliveryRate, runWebhooks } from "./webhook-run.ts";
import { workerUse } from "./workerd-usage.ts";

const options = parseBenchOptions(process.argv.slice(2));
const { settings, otherRounds, deadlineMs } = options;
const rows = rowsNamed(options.rows);

const t0 = performance.now();
const log = (message: string) =>
  process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0)}s] ${message}\n`);

const startedAt = new Date().toISOString();
const benchDir = path.join(ROOT, ".bench");
/** This run's bundles and server logs; removed unless something failed. */
const runDir = path.join(benchDir, `run-${startedAt.replace(/[:.]/g, "-")}`);
/** The servers' D1 and Durable Object state, removed however the run ends. */
let stateDir: string | undefined;

/** Every row beside its floors, round after round; the table and the JSON. */
async function runRows(context: RowRunContext): Promise<void> {
  const up = await startRowServers(context, rows, otherRounds);
  try {
    const samples = await measureRounds(up.targets, settings, log, { paired: true });
    const [api, floor] = await Promise.all([
      workerUse(up.api.processGroup),
      workerUse(up.floor.processGroup),
    ]);
    const report: Report = {
      startedAt,
      finishedAt: new Date().toISOString(),
      settings: { ...settings, otherRounds },
      machine: machine(),
      git: gitRevision(),
      rows: summarise(up.targets, samples),
      samples,
      residentAfter: { api: api.residentMiB, floor: floor.residentMiB },
    };
    const file = await writeReport(benchDir, report);
    process.stdout.write(`\n${formatTable(report)}\n\nwritten to ${path.relative(ROOT, file)}\n`);
    const bad = report.rows.some((row) => row.unexpectedResponses + row.errors > 0);
    if (bad)
      throw new Error("some requests failed or got an unexpected status; see the bad column");
  } finally {
    await up.stop();
  }
}

/** Some rows' endpoints and floors under a profiler; the summary and the profiles. */
async function runProfile(context: RowRunContext): Promise<void> {
  const up = await startRowServers(context, rows, otherRounds);
  try {
    await profileRows(up, options.rows, settings, { benchDir, startedAt, log });
  } finally {
    await up.stop();
  }
}

/** Either run, with this run's directory kept only when something failed; its state never. */
async function main(): Promise<void> {
  await mkdir(runDir, { recursive: true });
  stateDir = await makeStateDir();
  let keepRunDir = true;
  try {
    const context = { runDir, stateDir, log };
    if (options.scale) await runScale(options.scale, { ...context, startedAt, benchDir });
    else if (options.mode === "profile") await runProfile(context);
    else if (options.mode === "webhooks") await runWebhooks(benchDir, log);
    else if (options.mode === "webhook-profile") await profileWebhooks(benchDir, startedAt, log);
    else {
      await runRows(context);
      await runDeliveryRate(log);
    }
    keepRunDir = false;
  } finally {
    await rm(stateDir, { recursive: true, force: true });
    if (keepRunDir) log(`logs kept in ${path.relative(ROOT, runDir)}`);
    else await rm(runDir, { recursive: true, force: true });
  }
}

await runBounded(main, { deadlineMs, log, dirs: () => ({ state: stateDir, run: runDir }) });
