import path from "node:path";
import { buildReferenceAssets } from "../../src/cli/reference-assets.ts";
import { CALLERS, type Caller } from "./callers.ts";
import { type HookReceiver, startHookReceiver } from "./hook-receiver.ts";
import { probe, type Target } from "./measure.ts";
import type { BenchRow } from "./row-kinds.ts";
import { rowTargets } from "./row-targets.ts";
import { createBenchKey, prepareDatabases, sendTo } from "./seed.ts";
import { benchAnimalWalks } from "./seeded-animals.ts";
import { BENCH_SEED, seed } from "./seeding.ts";
import {
  API_CONFIG,
  apiSecrets,
  bundle,
  type DevServer,
  FLOOR_SCRIPT,
  metered,
  ROOT,
  startDevServers,
  stopAll,
} from "./servers.ts";

export interface RowRunContext {
  /** This run's bundles and server logs. */
  runDir: string;
  /** The servers' D1 and Durable Object state. */
  stateDir: string;
  log: (message: string) => void;
}

/** The API and its floor, serving, seeded, with the rows' targets probed once. */
export interface RowServersUp {
  api: DevServer;
  floor: DevServer;
  targets: Target[];
  stop(): Promise<void>;
}

/**
 * Bundles both Workers, prepares their databases, starts them with
 * `wrangler dev`, makes each caller's key on the API through its admin
 * endpoint, seeds both alike through their own routes, and probes each
 * row's targets once. The floor runs on the real Worker's configuration.
 */
export async function startRowServers(
  { runDir, stateDir, log }: RowRunContext,
  rows: readonly BenchRow[],
  otherRounds: number,
): Promise<RowServersUp> {
  const servers: DevServer[] = [];
  let receiver: HookReceiver | undefined;
  const stop = async () => {
    await stopAll(servers);
    await receiver?.close();
  };
  try {
    const apiState = path.join(stateDir, "api");
    const floorState = path.join(stateDir, "floor");
    log("bundling both Workers, preparing their databases");
    await buildReferenceAssets(ROOT);
    const [apiScript, floorScript] = await Promise.all([
      bundle(API_CONFIG, path.join(runDir, "api-bundle")),
      bundle(API_CONFIG, path.join(runDir, "floor-bundle"), FLOOR_SCRIPT),
      prepareDatabases(apiState, floorState),
    ]);
    receiver = await startHookReceiver();
    // This run's own operator token, so the bench keys are made through the admin endpoint.
    const secrets = apiSecrets();
    const adminToken = secrets.ADMIN_TOKEN;
    log("starting wrangler dev for the API and the floor");
    const common = { config: API_CONFIG, vars: { LOG_LEVEL: "warn" } };
    servers.push(
      ...(await startDevServers([
        {
          ...common,
          name: "api",
          script: apiScript,
          persistTo: apiState,
          logFile: path.join(runDir, "api.log"),
          readyPath: "/health",
          vars: { ...common.vars, ...secrets },
        },
        {
          ...common,
          name: "floor",
          script: floorScript,
          persistTo: floorState,
          logFile: path.join(runDir, "floor.log"),
          readyPath: "/v1/pets?limit=1",
        },
      ])),
    );
    const [api, floor] = servers;
    if (!api || !floor) throw new Error("a server did not start");

    log("making the callers' keys, seeding both servers through their own routes");
    const keys = {} as Record<Caller, string>;
    for (const [caller, { email }] of Object.entries(CALLERS) as [Caller, { email: string }][]) {
      keys[caller] = await createBenchKey(api.origin, adminToken, email);
    }
    const hookUrl = receiver.url;
    const [apiSend, floorSend] = [sendTo(api.origin, keys), sendTo(floor.origin)];
    const [apiSeeded, floorSeeded] = await Promise.all([
      seed(apiSend, BENCH_SEED, benchAnimalWalks(), hookUrl),
      seed(floorSend, BENCH_SEED, benchAnimalWalks(), hookUrl),
    ]);
    const rowServers = {
      api: { origin: api.origin, keys, seeded: apiSeeded, send: apiSend },
      floor: { origin: floor.origin, seeded: floorSeeded, send: floorSend },
    };
    const targets = metered(rowTargets(rows, rowServers, otherRounds), servers);
    for (const target of targets) await probe(target);
    return { api, floor, targets, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
