import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Inspector, profileDuring } from "./profile.ts";
import { formatProfile, frameResolver, summariseProfile } from "./profile-analysis.ts";
import { ROOT } from "./servers.ts";
import { deliveryRate, openBench } from "./webhook-run.ts";

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

/**
 * `npm run bench -- --webhooks --profile`: where the Worker's time goes
 * while it delivers. The delivery rate's scenario runs once to warm the
 * isolate, then again under V8's sampling profiler; the shares and the top
 * functions are printed, and the profile written to .bench/ (the endpoints'
 * objects run in the Worker's isolate under `npm start`, so one profile
 * holds the creates, the relay, the consumer and the objects).
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
    try {
      log("delivery rate under the profiler");
      const { profile, result } = await profileDuring(inspector, () =>
        deliveryRate(bench, "profiled"),
      );
      const summary = summariseProfile(
        profile,
        resolve,
        {
          target: "deliveries",
          label: `${result.animals} animals to ${result.endpoints} endpoints, ${result.deliveries} deliveries (Worker CPU ${result.workerCpuMsPerDelivery} ms each)`,
          requests: result.deliveries,
        },
        25,
      );
      const directory = path.join(benchDir, `profile-${startedAt.replace(/[:.]/g, "-")}`);
      await mkdir(directory, { recursive: true });
      await writeFile(path.join(directory, "deliveries.cpuprofile"), JSON.stringify(profile));
      await writeFile(
        path.join(directory, "summary.json"),
        `${JSON.stringify(summary, null, 2)}\n`,
      );
      process.stdout.write(
        `\n${formatProfile(summary)}\n\nwritten to ${path.relative(ROOT, directory)}\n`,
      );
    } finally {
      inspector.close();
    }
  } finally {
    await stop();
  }
}
