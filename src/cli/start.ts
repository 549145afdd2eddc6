import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { DatabaseSync } from "node:sqlite";
import { setTimeout as sleep } from "node:timers/promises";
import {
  answersHealth,
  findLocalServer,
  forgetServing,
  LOCAL_STATE_DIR,
  parseCommand,
  recordServing,
  runCommand,
  stateDirOf,
  UsageError,
} from "./command.ts";
import { buildReferenceAssets } from "./reference-assets.ts";

const help = `Usage: npm start [-- --port N] [-- --inspector-port N] [-- --persist-to DIR]

Applies pending local D1 migrations, creates .dev.vars (with random
secrets) if it is missing, then serves the API with wrangler dev on
http://127.0.0.1:8787, with local D1, KV and Durable Objects under ${LOCAL_STATE_DIR}.
Once it answers, it records its address there, so \`npm run key\` and
\`npm run account\` find it. Local state made by an earlier version, whose D1
applied migrations this one does not have, is discarded first.

  --port N            listen on port N instead of 8787
  --inspector-port N  take port N for the debugger, instead of the first free one
                      from 9229 (two servers starting at once can both pick it)
  --persist-to DIR    keep local state in DIR instead of ${LOCAL_STATE_DIR}
  -h, --help          show this help`;

const HOST = "127.0.0.1";

/** wrangler dev's own line per request (`[wrangler:info] GET /v1/pets 200 OK (12ms)`). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: wrangler colours its lines with ANSI escapes.
const REQUEST_LINE = /^(?:\x1b\[[0-9;]*m)*\[wrangler:info\](?:\x1b\[[0-9;]*m)* [A-Z]+ \S+ \d{3}\b/;
/** The title of wrangler dev's table of bindings, which it prints again whenever its registry of local Workers changes. */
const BINDINGS_TITLE = "Your Worker has access to the following bindings:";
/** What wrangler dev says when that registry changes: nothing about this Worker, whose bindings are all its own. */
const REGISTRY_CHANGED = "Connection status updated";

/**
 * Which of wrangler dev's lines to show: not its line per request, as the
 * Worker logs one JSON line per request already, and its table of bindings
 * once (a repeat runs to the blank line that ends it).
 */
function devLines(): (line: string) => boolean {
  let bindingsShown = false;
  let repeating = false;
  return (line) => {
    if (repeating) {
      repeating = line.trim() !== "";
      return false;
    }
    if (line.includes(BINDINGS_TITLE)) {
      repeating = bindingsShown;
      bindingsShown = true;
      return !repeating;
    }
    return !REQUEST_LINE.test(line) && !line.includes(REGISTRY_CHANGED);
  };
}

/**
 * Runs wrangler (its own entry script, with this Node) to the end, with no
 * metrics, no banner, and no download of the `request.cf` data (which fails
 * on a machine without network). `migrate` runs with no terminal, so wrangler
 * applies without asking, and what it prints is shown only if it fails;
 * `dev` shows what `devLines` keeps. Resolves to its exit code; `started`
 * sees the process first.
 */
async function wrangler(args: string[], started?: (child: ChildProcess) => void): Promise<number> {
  const dev = started !== undefined;
  const entry = createRequire(import.meta.url).resolve("wrangler/package.json");
  const child = spawn(
    process.execPath,
    [path.join(path.dirname(entry), "bin", "wrangler.js"), ...args],
    {
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: "false",
        WRANGLER_HIDE_BANNER: "true",
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
        ...(dev ? {} : { CI: "true" }),
      },
      stdio: [dev ? "inherit" : "ignore", "pipe", "pipe"],
    },
  );
  let said = "";
  if (dev) {
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const) {
      if (!from) continue;
      const shown = devLines();
      createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
        if (shown(line)) to.write(`${line}\n`);
      });
    }
    started(child);
  } else {
    for (const from of [child.stdout, child.stderr]) from?.on("data", (chunk) => (said += chunk));
  }
  const [code, signal] = (await once(child, "close")) as [number | null, NodeJS.Signals | null];
  if (code !== 0) process.stderr.write(said);
  return code ?? 128 + (signal ? (constants.signals[signal] ?? 1) : 1);
}

/**
 * The migration files this version ships, by name, from the folder
 * wrangler.toml's top level names. Read from the text: loading wrangler to
 * parse it would cost every start 1.5 s.
 */
function shippedMigrations(): string[] {
  const topLevel = readFileSync("wrangler.toml", "utf8").split(/^\[env\./m)[0] ?? "";
  const dir = topLevel.match(/^migrations_dir\s*=\s*"([^"]+)"/m)?.[1] ?? "migrations";
  return readdirSync(path.resolve(dir)).filter((name) => name.endsWith(".sql"));
}

/** The migrations the local D1 under `stateDir` applied: none while it has no D1. */
function appliedMigrations(stateDir: string): string[] {
  const d1 = path.join(stateDir, "v3", "d1");
  if (!existsSync(d1)) return [];
  const applied: string[] = [];
  for (const file of readdirSync(d1, { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".sqlite")) continue;
    const db = new DatabaseSync(path.join(d1, file), { readOnly: true });
    try {
      const table = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'd1_migrations'";
      if (!db.prepare(table).get()) continue;
      for (const row of db.prepare("SELECT name FROM d1_migrations").all()) {
        applied.push(String(row.name));
      }
    } finally {
      db.close();
    }
  }
  return applied;
}

/** The secrets `npm start` makes for .dev.vars: 32 random bytes each. */
const GENERATED_SECRETS = /^(ADMIN_TOKEN|SESSION_SECRET|CONSISTENCY_TOKEN_SECRET)=.*$/gm;
/** Secrets every reply needs that a .dev.vars made by an earlier version lacks. */
const LATER_SECRETS = ["CONSISTENCY_TOKEN_SECRET"];

const freshSecret = () => randomBytes(32).toString("base64url");

/**
 * Creates .dev.vars when it is missing: the committed example, with fresh
 * random secrets. One made earlier gets the secrets added since.
 */
function ensureDevVars(): void {
  if (!existsSync(".dev.vars")) {
    const text = readFileSync(".dev.vars.example", "utf8").replace(
      GENERATED_SECRETS,
      (_, name) => `${name}=${freshSecret()}`,
    );
    writeFileSync(".dev.vars", text, { mode: 0o600, flag: "wx" });
    console.log("Created .dev.vars with fresh random secrets.");
    return;
  }
  const text = readFileSync(".dev.vars", "utf8");
  const missing = LATER_SECRETS.filter((name) => !new RegExp(`^${name}=`, "m").test(text));
  if (missing.length === 0) return;
  appendFileSync(".dev.vars", missing.map((name) => `\n${name}=${freshSecret()}\n`).join(""));
  console.log(`Added ${missing.join(", ")} to .dev.vars, with a fresh random value.`);
}

/** The port a flag names: a whole number 1–65535, else a usage error. */
function portOf(flag: string, text: string): number {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : 0;
  if (port < 1 || port > 65_535) throw new UsageError(`${flag} must be 1–65535, got "${text}"`);
  return port;
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseCommand(argv, {
    port: { type: "string" },
    "inspector-port": { type: "string" },
    "persist-to": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(help);
    return 0;
  }
  const port = portOf("--port", values.port ?? "8787");
  const inspectorPort = values["inspector-port"];
  const inspector =
    inspectorPort === undefined
      ? []
      : ["--inspector-port", String(portOf("--inspector-port", inspectorPort))];
  const persistTo = stateDirOf(values["persist-to"]);
  const stateDir = path.resolve(persistTo);
  // Two servers on one state would share its SQLite files, and only one could be found.
  const already = await findLocalServer(stateDir);
  if (already) {
    console.error(
      `error: npm start already serves ${persistTo} on ${already}; stop it first, or give another --persist-to`,
    );
    return 1;
  }

  // A state whose D1 applied a migration this version does not ship was made by an earlier
  // version: wrangler would stop on its tables ("already exists"). Its KV records and Durable
  // Objects describe that D1, so all of wrangler's state goes together; only wrangler's own
  // `v3` folder, so a mistaken --persist-to never loses anything else.
  const shipped = shippedMigrations();
  let applied = appliedMigrations(stateDir);
  const unknown = applied.find((name) => !shipped.includes(name));
  if (unknown !== undefined) {
    rmSync(path.join(stateDir, "v3"), { recursive: true, force: true });
    applied = [];
    console.log(
      `Local state in ${persistTo} was made by an earlier version (its D1 applied ${unknown}); starting afresh without its D1, KV and Durable Objects.`,
    );
  }
  // wrangler takes seconds to find nothing to apply; a restart on a current state skips it.
  const pending = shipped.filter((name) => !applied.includes(name));
  if (pending.length > 0) {
    const migrated = await wrangler([
      ..."d1 migrations apply DB --local --persist-to".split(" "),
      stateDir,
    ]);
    if (migrated !== 0) {
      console.error("error: applying local D1 migrations failed");
      return migrated;
    }
    console.log(`Applied local D1 migrations: ${pending.join(", ")}.`);
  }
  ensureDevVars();
  await buildReferenceAssets(process.cwd());

  const origin = `http://${HOST}:${port}`;
  const args = [
    "dev",
    "--ip",
    HOST,
    "--port",
    String(port),
    ...inspector,
    "--persist-to",
    stateDir,
  ];
  // Its key shortcuts need wrangler to own the terminal, which it cannot while its lines are filtered.
  return wrangler([...args, "--show-interactive-dev-session=false"], async (dev) => {
    // Ctrl-C and friends go on to wrangler, which shuts workerd down cleanly.
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
      process.on(signal, () => dev.kill(signal));
    }
    // A record left behind would name a server that is gone. (After a SIGKILL one is left;
    // the command then finds nothing answering there and treats it as no server.)
    process.on("exit", () => forgetServing(stateDir));
    while (dev.exitCode === null && dev.signalCode === null) {
      if (await answersHealth(origin, 1_000)) {
        recordServing(stateDir, origin);
        console.log(`Serving on ${origin}. Make an API key:  npm run key -- create --plan free`);
        return;
      }
      await sleep(250);
    }
  });
}

await runCommand(main);
