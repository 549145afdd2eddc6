import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { load, settle, type Target, warmUp } from "./measure.ts";
import {
  type CpuProfile,
  formatProfile,
  frameResolver,
  type ProfileSummary,
  summariseProfile,
} from "./profile-analysis.ts";
import type { RoundSettings } from "./rounds.ts";
import type { RowServersUp } from "./row-servers.ts";
import { HOST, ROOT } from "./servers.ts";

/** Microseconds between samples: fine enough for a request of a few hundred. */
const SAMPLING_INTERVAL_US = 100;

// Node's WebSocket (undici's) takes request headers in a second argument the DOM's type does not list.
const NodeWebSocket = WebSocket as unknown as new (
  url: string,
  init: { headers: Record<string, string> },
) => WebSocket;

/** A DevTools protocol session with one Worker, through wrangler's inspector proxy. */
export class Inspector {
  #socket: WebSocket;
  #next = 0;
  #pending = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
      };
      const waiting = message.id === undefined ? undefined : this.#pending.get(message.id);
      if (!waiting || message.id === undefined) return;
      this.#pending.delete(message.id);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
    });
    socket.addEventListener("close", () => {
      for (const waiting of this.#pending.values()) waiting.reject(new Error("inspector closed"));
      this.#pending.clear();
    });
  }

  /**
   * Connects to the inspector at `port`. Wrangler's proxy takes one client at
   * a time and refuses one with a User-Agent but no Origin, as Node sends.
   */
  static async connect(port: number): Promise<Inspector> {
    const socket = new NodeWebSocket(`ws://${HOST}:${port}/ws`, {
      headers: { Origin: "http://localhost" },
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no inspector at ${port}`)), 10_000);
      socket.addEventListener("open", () => resolve(clearTimeout(timer)), { once: true });
      socket.addEventListener("error", () => reject(new Error(`no inspector at ${port}`)), {
        once: true,
      });
    });
    return new Inspector(socket);
  }

  /** Sends a command and waits (at most a minute) for its answer's result. */
  send<T>(method: string, params: object = {}): Promise<T> {
    const id = ++this.#next;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`no answer to ${method}`));
      }, 60_000);
      const settle = (then: () => void) => {
        clearTimeout(timer);
        then();
      };
      this.#pending.set(id, {
        resolve: (result) => settle(() => resolve(result as T)),
        reject: (error) => settle(() => reject(error)),
      });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /**
   * Closes the session without waiting for the proxy's side of the close,
   * which it may never send: a server keeps one session for all its profiles.
   */
  close(): void {
    this.#socket.close();
  }
}

/** A CPU profile of the inspector's Worker while `work` runs, and what `work` came to. */
export async function profileDuring<T>(
  inspector: Inspector,
  work: () => Promise<T>,
): Promise<{ profile: CpuProfile; result: T }> {
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
  await inspector.send("Profiler.start");
  const result = await work();
  const { profile } = await inspector.send<{ profile: CpuProfile }>("Profiler.stop");
  return { profile, result };
}

/** A CPU profile of a Worker while `target` is loaded, and the requests answered. */
async function profileLoad(
  inspector: Inspector,
  target: Target,
  settings: RoundSettings,
): Promise<{ profile: CpuProfile; requests: number }> {
  const { profile, result } = await profileDuring(inspector, () => load(target, settings));
  return { profile, requests: result.requests.total };
}

interface ProfileContext {
  benchDir: string;
  startedAt: string;
  log: (message: string) => void;
}

/**
 * Profiles each named row's endpoint and its floors in turn, after a
 * warm-up load each: prints where the sampled time went, and writes each
 * profile (open it in Chrome DevTools' Performance panel) and the summaries
 * to .bench/.
 */
export async function profileRows(
  up: RowServersUp,
  rowIds: string[],
  settings: RoundSettings,
  { benchDir, startedAt, log }: ProfileContext,
): Promise<void> {
  const directory = path.join(benchDir, `profile-${startedAt.replace(/[:.]/g, "-")}`);
  await mkdir(directory, { recursive: true });
  const servers = await Promise.all(
    [up.api, up.floor].map(async (server) => ({
      server,
      inspector: await Inspector.connect(server.inspectorPort),
      resolve: await frameResolver(server.script, ROOT),
    })),
  );
  const summaries: ProfileSummary[] = [];
  try {
    for (const rowId of rowIds) {
      const endpoint = up.targets.find((target) => target.id === rowId);
      const floors = up.targets.filter((target) => endpoint?.floors?.includes(target.id));
      for (const target of endpoint ? [endpoint, ...floors] : []) {
        const on = servers.find(({ server }) => server.origin === target.origin);
        if (!on) throw new Error(`${target.label}: no server at ${target.origin}`);
        await warmUp(target, { ...settings, durationSeconds: settings.warmupSeconds });
        log(`profiling ${target.label} for ${settings.durationSeconds} s`);
        const { profile, requests } = await profileLoad(on.inspector, target, settings);
        await settle(target);
        await writeFile(path.join(directory, `${target.id}.cpuprofile`), JSON.stringify(profile));
        const about = { target: target.id, label: target.label, requests };
        summaries.push(summariseProfile(profile, on.resolve, about));
      }
    }
  } finally {
    for (const { inspector } of servers) inspector.close();
  }
  await writeFile(path.join(directory, "summary.json"), `${JSON.stringify(summaries, null, 2)}\n`);
  process.stdout.write(
    `\n${summaries.map(formatProfile).join("\n\n")}\n\nwritten to ${path.relative(ROOT, directory)}\n`,
  );
}
