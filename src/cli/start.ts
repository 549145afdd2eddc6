import type { ChildProcess } from "node:child_process";
import { constants } from "node:os";
import { parseCommand, parsePort, runCommand, UsageError } from "./args.ts";
import { ensureDevVars } from "./dev-vars.ts";
import { LOCAL_STATE_DIR, projectRoot } from "./project.ts";
import { spawnWrangler } from "./wrangler.ts";

const help = `Usage: npm start [-- --port N]

Applies pending local D1 migrations, creates .dev.vars (with a random
ADMIN_TOKEN) if it is missing, then serves the API with wrangler dev on
http://127.0.0.1:8787, with local D1, KV and Durable Objects under ${LOCAL_STATE_DIR}.

  --port N      listen on port N instead of 8787
  -h, --help    show this help`;

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

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    port: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(help);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const port = values.port === undefined ? 8787 : parsePort(values.port);
  const root = projectRoot();

  // Non-interactive: with no terminal on stdin wrangler applies without asking.
  const migrate = spawnWrangler(
    ["d1", "migrations", "apply", "DB", "--local", "--persist-to", LOCAL_STATE_DIR],
    root,
    { stdin: "ignore", env: { CI: "true" } },
  );
  const migrated = await finished(migrate);
  if (migrated !== 0) {
    console.error("error: applying local D1 migrations failed");
    return migrated;
  }

  if (ensureDevVars(root)) console.log("Created .dev.vars with a fresh random ADMIN_TOKEN.");
  console.log("Make an API key in another terminal:  npm run key -- create --plan free");

  const dev = spawnWrangler(
    ["dev", "--ip", HOST, "--port", String(port), "--persist-to", LOCAL_STATE_DIR],
    root,
  );
  forwardSignals(dev);
  return finished(dev);
}

await runCommand(main);
