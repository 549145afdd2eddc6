import type { ChildProcess } from "node:child_process";
import { constants } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseCommand, parsePort, runCommand, UsageError } from "./args.ts";
import { ensureDevVars } from "./dev-vars.ts";
import { answersHealth, findLocalServer, forgetServing, recordServing } from "./local-server.ts";
import { LOCAL_STATE_DIR, projectRoot } from "./project.ts";
import { buildReferenceAssets } from "./reference-assets.ts";
import { spawnWrangler } from "./wrangler.ts";

const help = `Usage: npm start [-- --port N] [-- --persist-to DIR]

Applies pending local D1 migrations, creates .dev.vars (with a random
ADMIN_TOKEN) if it is missing, then serves the API with wrangler dev on
http://127.0.0.1:8787, with local D1, KV and Durable Objects under ${LOCAL_STATE_DIR}.
Once it answers, it records its address there (so \`npm run key\` and
\`npm run account\` find it).

  --port N          listen on port N instead of 8787
  --persist-to DIR  keep local state in DIR instead of ${LOCAL_STATE_DIR}
  -h, --help        show this help`;

const HOST = "127.0.0.1";

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (constants.signals[signal] ?? 1) : 1);
}

function finished(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(exitCodeOf(code, signal)));
  });
}

/** Passes Ctrl-C and friends on to wrangler, which shuts workerd down cleanly. */
function forwardSignals(child: ChildProcess): void {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => child.kill(signal));
  }
}

/** Resolves once the Worker answers /health, or false if wrangler exits first. */
async function serving(origin: string, child: ChildProcess): Promise<boolean> {
  while (child.exitCode === null && child.signalCode === null) {
    if (await answersHealth(origin, 1_000)) return true;
    await sleep(250);
  }
  return false;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    port: { type: "string" },
    "persist-to": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(help);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const port = values.port === undefined ? 8787 : parsePort(values.port);
  const persistTo = values["persist-to"] ?? LOCAL_STATE_DIR;
  if (persistTo === "") throw new UsageError("--persist-to needs a directory");
  const root = projectRoot();
  const stateDir = path.resolve(root, persistTo);
  // Two servers on one state would share its SQLite files, and only one could be found.
  const already = await findLocalServer(stateDir);
  if (already) {
    console.error(
      `error: npm start already serves ${persistTo} on ${already}; stop it first, or give another --persist-to`,
    );
    return 1;
  }

  // Non-interactive: with no terminal on stdin wrangler applies without asking.
  const migrate = spawnWrangler(
    ["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir],
    root,
    { stdin: "ignore", env: { CI: "true" } },
  );
  const migrated = await finished(migrate);
  if (migrated !== 0) {
    console.error("error: applying local D1 migrations failed");
    return migrated;
  }

  if (ensureDevVars(root)) console.log("Created .dev.vars with a fresh random ADMIN_TOKEN.");
  await buildReferenceAssets(root);

  const origin = `http://${HOST}:${port}`;
  const dev = spawnWrangler(
    [
      "dev",
      ...["--ip", HOST, "--port", String(port), "--persist-to", stateDir],
      // Its key shortcuts need wrangler to own the terminal, which it cannot while its lines are filtered.
      "--show-interactive-dev-session=false",
    ],
    root,
    { oneLinePerRequest: true },
  );
  forwardSignals(dev);
  const exited = finished(dev);
  // A record left behind would name a server that is gone. (After a SIGKILL one is left;
  // the command then finds nothing answering there and treats it as no server.)
  process.on("exit", () => forgetServing(stateDir, process.pid));

  if (await serving(origin, dev)) {
    recordServing(stateDir, { url: origin, pid: process.pid });
    console.log(`Serving on ${origin}. Make an API key:  npm run key -- create --plan free`);
  }
  return exited;
}

await runCommand(main);
