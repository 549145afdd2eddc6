import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { DatabaseSync } from "node:sqlite";
import type { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { parseCommand, runCommand, UsageError } from "./command.ts";
import {
  answersHealth,
  ensureDevVars,
  findLocalServer,
  forgetServing,
  LOCAL_STATE_DIR,
  projectRoot,
  recordServing,
  wranglerConfig,
} from "./project.ts";
import { buildReferenceAssets } from "./reference-assets.ts";

const help = `Usage: npm start [-- --port N] [-- --persist-to DIR]

Applies pending local D1 migrations, creates .dev.vars (with a random
ADMIN_TOKEN) if it is missing, then serves the API with wrangler dev on
http://127.0.0.1:8787, with local D1, KV and Durable Objects under ${LOCAL_STATE_DIR}.
Once it answers, it records its address there, so \`npm run key\` and
\`npm run account\` find it. Local state made by an earlier version, whose D1
applied migrations this one does not have, is discarded first.

  --port N          listen on port N instead of 8787
  --persist-to DIR  keep local state in DIR instead of ${LOCAL_STATE_DIR}
  -h, --help        show this help`;

const HOST = "127.0.0.1";

const require = createRequire(import.meta.url);

/** wrangler's own entry script, run with this Node (24) rather than whatever is on PATH. */
const wranglerEntry = () =>
  path.join(path.dirname(require.resolve("wrangler/package.json")), "bin", "wrangler.js");

/** wrangler dev's own line per request (`[wrangler:info] GET /v1/pets 200 OK (12ms)`). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: wrangler colours its lines with ANSI escapes.
const REQUEST_LINE = /^(?:\x1b\[[0-9;]*m)*\[wrangler:info\](?:\x1b\[[0-9;]*m)* [A-Z]+ \S+ \d{3}\b/;

/** Copies lines from wrangler to the terminal, leaving out its request lines. */
function withoutRequestLines(from: Readable | null, to: Writable): void {
  if (!from) return;
  createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
    if (!REQUEST_LINE.test(line)) to.write(`${line}\n`);
  });
}

/**
 * Runs wrangler with no metrics, no banner, and no download of the
 * `request.cf` data (which fails on a machine without network). `migrate`
 * runs with no terminal, so wrangler applies without asking; `dev` leaves out
 * wrangler's own line per request, as the Worker logs one JSON line per
 * request already.
 */
function wrangler(mode: "migrate" | "dev", args: string[], root: string): ChildProcess {
  const dev = mode === "dev";
  const output = dev ? "pipe" : "inherit";
  const child = spawn(process.execPath, [wranglerEntry(), ...args], {
    cwd: root,
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      WRANGLER_HIDE_BANNER: "true",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      ...(dev ? {} : { CI: "true" }),
    },
    stdio: [dev ? "inherit" : "ignore", output, output],
  });
  if (dev) {
    withoutRequestLines(child.stdout, process.stdout);
    withoutRequestLines(child.stderr, process.stderr);
  }
  return child;
}

function finished(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 1) : 1)),
    );
  });
}

/** The migrations each local D1 database under `stateDir` has applied, by wrangler's record. */
function appliedMigrations(stateDir: string): string[] {
  const d1 = path.join(stateDir, "v3", "d1");
  if (!existsSync(d1)) return [];
  const files = readdirSync(d1, { recursive: true, encoding: "utf8" });
  return files
    .filter((file) => file.endsWith(".sqlite"))
    .flatMap((file) => {
      const db = new DatabaseSync(path.join(d1, file), { readOnly: true });
      try {
        const table = db
          .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'd1_migrations'")
          .get();
        if (!table) return [];
        return db
          .prepare("SELECT name FROM d1_migrations")
          .all()
          .map((row) => String(row.name));
      } finally {
        db.close();
      }
    });
}

/**
 * A state whose D1 applied a migration this version does not ship was made
 * by an earlier version: wrangler would stop on its tables ("already
 * exists"). Its KV records and Durable Objects describe that D1, so all of
 * wrangler's state goes together. Only wrangler's own `v3` folder is removed,
 * so a mistaken --persist-to never loses anything else.
 */
async function discardStaleState(root: string, stateDir: string, shown: string): Promise<void> {
  const applied = appliedMigrations(stateDir);
  if (applied.length === 0) return;
  const config = await wranglerConfig(root);
  const dir = path.resolve(root, config.d1_databases[0]?.migrations_dir ?? "migrations");
  const shipped = new Set(readdirSync(dir).filter((file) => file.endsWith(".sql")));
  const unknown = applied.find((name) => !shipped.has(name));
  if (unknown === undefined) return;
  rmSync(path.join(stateDir, "v3"), { recursive: true, force: true });
  console.log(
    `Local state in ${shown} was made by an earlier version (its D1 applied ${unknown}); starting afresh without its D1, KV and Durable Objects.`,
  );
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
  const { values } = parseCommand(argv, {
    port: { type: "string" },
    "persist-to": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(help);
    return 0;
  }
  const port = /^[0-9]{1,5}$/.test(values.port ?? "8787") ? Number(values.port ?? 8787) : 0;
  if (port < 1 || port > 65_535) {
    throw new UsageError(`--port must be 1–65535, got "${values.port}"`);
  }
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

  await discardStaleState(root, stateDir, persistTo);
  const migrate = ["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir];
  const migrated = await finished(wrangler("migrate", migrate, root));
  if (migrated !== 0) {
    console.error("error: applying local D1 migrations failed");
    return migrated;
  }

  if (ensureDevVars(root)) console.log("Created .dev.vars with a fresh random ADMIN_TOKEN.");
  await buildReferenceAssets(root);

  const origin = `http://${HOST}:${port}`;
  const dev = wrangler(
    "dev",
    [
      "dev",
      ...["--ip", HOST, "--port", String(port), "--persist-to", stateDir],
      // Its key shortcuts need wrangler to own the terminal, which it cannot while its lines are filtered.
      "--show-interactive-dev-session=false",
    ],
    root,
  );
  // Ctrl-C and friends go on to wrangler, which shuts workerd down cleanly.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => dev.kill(signal));
  }
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
