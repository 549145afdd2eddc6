import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Inspector, profileDuring } from "./profile.ts";
import {
  type CpuProfile,
  formatProfile,
  frameResolver,
  type ProfileSummary,
  summariseProfile,
} from "./profile-analysis.ts";
import { ROOT } from "./servers.ts";
import { type Bench, burst, deliveryRate, openBench } from "./webhook-run.ts";

/** The bundle `npm start`'s wrangler dev serves, with its source map: under the sandbox's .wrangler/tmp while it runs. */
async function devBundle(sandboxDir: string): Promise<string> {
  const tmp = path.join(sandboxDir, ".wrangler", "tmp");
  for (const dir of await readdir(tmp)) {
    if (!dir.startsWith("dev-")) continue;
    const files = await readdir(path.join(tmp, dir));
    if (files.includes("index.js.map")) return path.join(tmp, dir, "index.js");
  }
  throw new Error(`no dev bundle under ${tmp}`);
}

/** The scenarios profiled: each one's id, and its run with what to say of it. */
const SCENARIOS: {
  id: string;
  run: (bench: Bench) => Promise<{ label: string; deliveries: number }>;
}[] = [
  {
    id: "burst-answering",
    run: async (bench) => {
      const result = await burst(bench, "ok", "profiled");
      return {
        label: `150 animals in 5 s beside 10 answering endpoints: the healthy one's median ${Math.round(result.medianMs)} ms, max ${Math.round(result.maxMs)} ms`,
        // Every endpoint, the healthy one and its 10 neighbours, gets each animal.
        deliveries: result.allMs.length * 11,
      };
    },
  },
  {
    id: "rate",
    run: async (bench) => {
      const result = await deliveryRate(bench, "profiled");
      return {
        label: `${result.animals} animals to ${result.endpoints} endpoints (Worker CPU ${result.workerCpuMsPerDelivery} ms a delivery)`,
        deliveries: result.deliveries,
      };
    },
  },
];

async function profileScenario(
  inspector: Inspector,
  bench: Bench,
  scenario: (typeof SCENARIOS)[number],
): Promise<{ profile: CpuProfile; label: string; deliveries: number }> {
  const { profile, result } = await profileDuring(inspector, () => scenario.run(bench));
  return { profile, ...result };
}

/**
 * `npm run bench -- --webhooks --profile`: where the Worker's time goes
 * while it delivers. The delivery rate's scenario runs once to warm the
 * isolate; then the burst beside answering endpoints and the rate each run
 * under V8's sampling profiler. The shares and top functions are printed,
 * the profiles written to .bench/ (under `npm start` the endpoints' objects
 * run in the Worker's isolate, so one profile holds the creates, the relay,
 * the consumer and the objects).
 */
export async function profileWebhooks(
  benchDir: string,
  startedAt: string,
  log: (message: string) => void,
): Promise<void> {
  const { bench, sandboxDir, stop } = await openBench(log);
  try {
    const resolve = await frameResolver(await devBundle(sandboxDir), ROOT);
    log("delivery rate, to warm the isolate");
    await deliveryRate(bench, "warm-up");
    const inspector = await Inspector.connect(bench.server.inspectorPort);
    const directory = path.join(benchDir, `profile-${startedAt.replace(/[:.]/g, "-")}`);
    await mkdir(directory, { recursive: true });
    const summaries: ProfileSummary[] = [];
    try {
      for (const scenario of SCENARIOS) {
        log(`${scenario.id} under the profiler`);
        const { profile, label, deliveries } = await profileScenario(inspector, bench, scenario);
        await writeFile(path.join(directory, `${scenario.id}.cpuprofile`), JSON.stringify(profile));
        summaries.push(
          summariseProfile(
            profile,
            resolve,
            { target: scenario.id, label, requests: deliveries },
            25,
          ),
        );
      }
    } finally {
      inspector.close();
    }
    await writeFile(
      path.join(directory, "summary.json"),
      `${JSON.stringify(summaries, null, 2)}\n`,
    );
    process.stdout.write(
      `\n${summaries.map(formatProfile).join("\n\n")}\n\nwritten to ${path.relative(ROOT, directory)}\n`,
    );
  } finally {
    await stop();
  }
}
