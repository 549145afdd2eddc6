/**
 * `npm run bench:compare -- --baseline DIR`: this checkout's Worker
 * against another checkout's (DIR: an export of another commit, with its
 * node_modules), each served by its own `wrangler dev`, loaded in turn in
 * paired rounds: two loads of a request (`--path`, `/v1/pets?limit=20` by
 * default; `--method POST --body JSON --status 201` for a create), one
 * from a single busy key and one from 100 keys in turn.
 * Prints, per load, the median over the rounds of this build's requests/s
 * divided by the baseline's, with the spread. For a change on the hot path
 * (the limiter's client, say) whose worth only a measurement can tell.
 * Options as `npm run bench`: --rounds 9 --duration 2 --warmup 2
 * --connections 16.
 */
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildReferenceAssets } from "../../src/cli/reference-assets.ts";
import { KEYS_PER_ACCOUNT_ANY_BUILD, makeKeys } from "./bench-keys.ts";
import { type Method, one } from "./flows.ts";
import { measure, type Sample, type Target } from "./measure.ts";
import { median } from "./report.ts";
import { applyMigrationsTo, sendTo } from "./seed.ts";
import { BENCH_SEED, seedPets } from "./seeding.ts";
import {
  apiSecrets,
  bundle,
  type DevServer,
  makeStateDir,
  ROOT,
  runBounded,
  startDevServers,
  stopAll,
} from "./servers.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    baseline: { type: "string" },
    path: { type: "string", default: "/v1/pets?limit=20" },
    method: { type: "string", default: "GET" },
    body: { type: "string" },
    status: { type: "string", default: "200" },
    rounds: { type: "string", default: "9" },
    duration: { type: "string", default: "2" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "16" },
  },
});
function fail(message: string): never {
  throw new Error(message);
}
if (!values.baseline) fail("--baseline DIR names the checkout to compare with");
const baselineRoot = path.resolve(values.baseline);
const METHODS = ["GET", "POST", "PATCH", "DELETE"] as const;
const method: Method =
  METHODS.find((each) => each === values.method) ??
  fail(`--method ${values.method}: expected one of ${METHODS.join(", ")}`);
const expectStatus = Number(values.status);
const rounds = Number(values.rounds);
const load = { connections: Number(values.connections), durationSeconds: Number(values.duration) };
const warmupSeconds = Number(values.warmup);
const KEYS = 100;
/** Two builds, two loads, every round, plus warm-ups: refused when it cannot end within the stop. */
const DEADLINE_MS = 360_000;
if (4 * (rounds * load.durationSeconds + warmupSeconds) > 240) {
  throw new Error("that much load would not fit the time limit; lower --rounds or --duration");
}

const t0 = performance.now();
const log = (message: string) =>
  process.stderr.write(`[compare ${((performance.now() - t0) / 1000).toFixed(0)}s] ${message}\n`);
const runDir = path.join(
  ROOT,
  ".bench",
  `compare-${new Date().toISOString().replace(/[:.]/g, "-")}`,
);
let stateDir: string | undefined;

interface Build {
  name: "this" | "baseline";
  root: string;
  server?: DevServer;
  keys: string[];
}

/** The two loads of one build: its first key alone, and its hundred keys taking turns. */
function targetsOf(build: Build): Target[] {
  const origin = build.server?.origin ?? "";
  const path = values.path;
  let turn = 0;
  return [
    {
      id: `${build.name}-busy-key`,
      label: `${build.name}: one busy key`,
      origin,
      headers: { Authorization: `Bearer ${build.keys[0]}` },
      flow: one(method, path, expectStatus, values.body),
    },
    {
      id: `${build.name}-${KEYS}-keys`,
      label: `${build.name}: ${KEYS} keys in turn`,
      origin,
      mix: {
        next: () => ({
          method,
          path,
          headers: {
            Authorization: `Bearer ${build.keys[turn++ % KEYS]}`,
            ...(values.body === undefined ? {} : { "Content-Type": "application/json" }),
          },
          ...(values.body === undefined ? {} : { body: values.body }),
        }),
        statuses: [expectStatus],
      },
    },
  ];
}

async function serve(builds: Build[], state: string): Promise<void> {
  const secrets = apiSecrets();
  const adminToken = secrets.ADMIN_TOKEN;
  log("building assets, bundling both Workers, applying migrations");
  const scripts = await Promise.all(
    builds.map(async (build) => {
      await buildReferenceAssets(build.root);
      const config = path.join(build.root, "wrangler.toml");
      await applyMigrationsTo(path.join(state, build.name), config);
      return bundle(config, path.join(runDir, `${build.name}-bundle`));
    }),
  );
  const servers = await startDevServers(
    builds.map((build, i) => ({
      name: build.name,
      config: path.join(build.root, "wrangler.toml"),
      script: scripts[i] ?? "",
      persistTo: path.join(state, build.name),
      logFile: path.join(runDir, `${build.name}.log`),
      readyPath: "/health",
      vars: { LOG_LEVEL: "warn", ...secrets },
    })),
  );
  builds.forEach((build, i) => {
    build.server = servers[i];
  });
  log(`making ${KEYS} keys on each, seeding animals`);
  for (const build of builds) {
    const origin = build.server?.origin ?? "";
    await makeKeys(origin, adminToken, build.keys, KEYS, log, KEYS_PER_ACCOUNT_ANY_BUILD);
    const key = build.keys[0] ?? "";
    await seedPets(sendTo(origin, { shopper: key, hooks: key }), BENCH_SEED.pets);
  }
}

async function compare(builds: [Build, Build]): Promise<void> {
  const [current, baseline] = builds.map(targetsOf) as [Target[], Target[]];
  const ratios = current.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [i, target] of current.entries()) {
      const pair = [target, baseline[i] as Target];
      // The baseline first in one round, second in the next.
      if (round % 2 === 1) pair.reverse();
      const samples = new Map<string, Sample>();
      for (const each of pair) {
        if (round === 0) await measure(each, { ...load, durationSeconds: warmupSeconds }, 0);
        const sample = await measure(each, load, round + 1);
        if (sample.unexpected + sample.errors > 0) {
          throw new Error(
            `${each.label}: ${sample.unexpected} unexpected, ${sample.errors} errors`,
          );
        }
        samples.set(each.id, sample);
        log(
          `round ${round + 1}/${rounds} ${each.label}: ${sample.requestsPerSecond.toFixed(0)} req/s`,
        );
      }
      const mine = samples.get(target.id)?.requestsPerSecond ?? 0;
      const theirs = samples.get(baseline[i]?.id ?? "")?.requestsPerSecond ?? 1;
      ratios[i]?.push(mine / theirs);
    }
  }
  process.stdout.write(
    "\nthis build's requests/s ÷ the baseline's, median (spread) over the rounds\n",
  );
  for (const [i, target] of current.entries()) {
    const each = ratios[i] ?? [];
    const label = target.label.replace(/^this: /, "");
    process.stdout.write(
      `${label.padEnd(20)} ${median(each).toFixed(2)} (${Math.min(...each).toFixed(2)}–${Math.max(...each).toFixed(2)})\n`,
    );
  }
}

async function main(): Promise<void> {
  await mkdir(runDir, { recursive: true });
  stateDir = await makeStateDir();
  const builds: [Build, Build] = [
    { name: "this", root: ROOT, keys: [] },
    { name: "baseline", root: baselineRoot, keys: [] },
  ];
  try {
    await serve(builds, stateDir);
    await compare(builds);
    await rm(runDir, { recursive: true, force: true });
  } finally {
    await stopAll(builds.flatMap((build) => (build.server ? [build.server] : [])));
    await rm(stateDir, { recursive: true, force: true });
  }
}

await runBounded(main, { deadlineMs: DEADLINE_MS, log, dirs: () => ({ state: stateDir }) });
