import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../free-port.ts";
import { stopGroup } from "../node/process-group.ts";

const root = path.resolve(import.meta.dirname, "../..");
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
const HOST = "127.0.0.1";

export interface WorkerServer {
  origin: string;
  stop(): Promise<void>;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(wrangler, args, { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`wrangler ${args[0]} exited with ${code}`)),
    );
  });
}

async function waitUntilServing(origin: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${origin}/health`);
      await response.text();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`wrangler dev did not answer on ${origin} within ${timeoutMs / 1000} s`);
}

/**
 * Serves the Worker the way `npm start` does (local migrations, then wrangler
 * dev on 127.0.0.1), but on a free port, with state in a throw-away directory
 * and its own SESSION_SECRET and CONSISTENCY_TOKEN_SECRET, so it neither touches nor needs the developer's
 * .wrangler/ state or .dev.vars. `vars` are set beside it (an ADMIN_TOKEN, say).
 */
export async function startWorker(vars: Record<string, string> = {}): Promise<WorkerServer> {
  const persistTo = await mkdtemp(path.join(tmpdir(), "petstore-browser-"));
  const env = { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" };
  await run(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo], env);
  const port = await freePort();
  const secret = () => randomBytes(32).toString("base64url");
  const child = spawn(
    wrangler,
    [
      "dev",
      ...["--ip", HOST, "--port", String(port), "--persist-to", persistTo],
      ...["--var", `SESSION_SECRET:${secret()}`, "--var", `CONSISTENCY_TOKEN_SECRET:${secret()}`],
      "--show-interactive-dev-session=false",
      ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ],
    { cwd: root, env, stdio: ["ignore", "ignore", "inherit"], detached: true },
  );
  const origin = `http://${HOST}:${port}`;
  const stop = async () => {
    await stopGroup(child, "SIGTERM", 10_000);
    await rm(persistTo, { recursive: true, force: true });
  };
  try {
    await waitUntilServing(origin, child, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin, stop };
}
