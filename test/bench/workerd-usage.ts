import { readdir, readFile } from "node:fs/promises";

/** What the workerd processes of one `wrangler dev` hold, summed over them. */
export interface WorkerdUsage {
  processes: number;
  /** Resident memory (VmRSS); `process.memoryUsage()` inside workerd reports zeros. */
  residentMiB: number;
  /** Open file descriptors: each live Durable Object keeps its SQLite files open. */
  openFiles: number;
  /** The lowest soft limit on open files among them: past it, workerd cannot open another object. */
  openFilesLimit: number | null;
}

/** The process group a process belongs to: the fifth field of /proc/<pid>/stat. */
function processGroupOf(stat: string): number {
  // The command name (second field) may hold spaces; the fields after it do not.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[2]);
}

async function usageOf(pid: string) {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const residentKiB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
  const openFiles = (await readdir(`/proc/${pid}/fd`)).length;
  const limits = await readFile(`/proc/${pid}/limits`, "utf8");
  const limit = Number(/^Max open files\s+(\d+)/m.exec(limits)?.[1]);
  return { residentKiB, openFiles, openFilesLimit: Number.isFinite(limit) ? limit : null };
}

/**
 * The workerd processes in a server's process group, each with its command
 * line (Linux only; elsewhere none). A process that exits while being read is
 * skipped.
 */
async function workerdsOf(
  processGroup: number,
): Promise<{ pid: string; stat: string; cmdline: string }[]> {
  const pids = await readdir("/proc").catch(() => [] as string[]);
  const found = await Promise.all(
    pids
      .filter((pid) => /^\d+$/.test(pid))
      .map(async (pid) => {
        try {
          const comm = (await readFile(`/proc/${pid}/comm`, "utf8")).trim();
          if (comm !== "workerd") return null;
          const stat = await readFile(`/proc/${pid}/stat`, "utf8");
          if (processGroupOf(stat) !== processGroup) return null;
          const cmdline = (await readFile(`/proc/${pid}/cmdline`, "utf8")).replaceAll("\0", " ");
          return { pid, stat, cmdline };
        } catch {
          return null;
        }
      }),
  );
  return found.filter((process) => process !== null);
}

/** Memory and open files of the workerd processes in a server's process group. */
export async function workerdUsage(processGroup: number): Promise<WorkerdUsage> {
  const read = await Promise.all(
    (await workerdsOf(processGroup)).map(({ pid }) => usageOf(pid).catch(() => null)),
  );
  const mine = read.filter((usage) => usage !== null);
  const limits = mine.flatMap((u) => (u.openFilesLimit === null ? [] : [u.openFilesLimit]));
  return {
    processes: mine.length,
    residentMiB: Math.round(mine.reduce((sum, u) => sum + u.residentKiB, 0) / 1024),
    openFiles: mine.reduce((sum, u) => sum + u.openFiles, 0),
    openFilesLimit: limits.length > 0 ? Math.min(...limits) : null,
  };
}

/** /proc counts a process's CPU time in USER_HZ ticks, which Linux fixes at 100 a second. */
const TICKS_PER_SECOND = 100;

/** The pid of each server's Worker workerd, found once: it lives as long as its server. */
const workerPids = new Map<number, string>();

/**
 * The workerd that runs the server's Worker: the one with an inspector
 * address, as the other one of `wrangler dev` runs wrangler's proxy.
 */
async function workerPid(processGroup: number): Promise<string> {
  const known = workerPids.get(processGroup);
  if (known !== undefined) return known;
  const workers = (await workerdsOf(processGroup)).filter((w) =>
    w.cmdline.includes("--inspector-addr"),
  );
  const [worker, ...others] = workers;
  if (!worker || others.length > 0) {
    throw new Error(
      `expected one workerd with an inspector in group ${processGroup}, found ${workers.length}`,
    );
  }
  workerPids.set(processGroup, worker.pid);
  return worker.pid;
}

/** What the Worker's workerd has used: CPU seconds so far (user and system), and memory now. */
export interface WorkerUse {
  cpuSeconds: number;
  /** Resident memory (VmRSS) of that one process. */
  residentMiB: number;
}

export async function workerUse(processGroup: number): Promise<WorkerUse> {
  const pid = await workerPid(processGroup);
  const [stat, status] = await Promise.all([
    readFile(`/proc/${pid}/stat`, "utf8"),
    readFile(`/proc/${pid}/status`, "utf8"),
  ]);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime: the 14th and 15th fields, the 12th and 13th after the command name.
  const ticks = Number(fields[11]) + Number(fields[12]);
  const residentKiB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
  return { cpuSeconds: ticks / TICKS_PER_SECOND, residentMiB: residentKiB / 1024 };
}

/** How long one look at the Worker's CPU lasts, and the most of it an idle Worker may use. */
const IDLE_WINDOW_MS = 50;
const IDLE_SHARE = 0.2;

/**
 * Waits (at most `maxMs`) until the Worker's workerd is idle: what a load
 * set going after its replies (deliveries, limiter writes) finishes before
 * its CPU is read, and no load starts while an earlier one's work runs on.
 */
export async function waitUntilIdle(processGroup: number, maxMs = 5_000): Promise<void> {
  const deadline = performance.now() + maxMs;
  let last = (await workerUse(processGroup)).cpuSeconds;
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
    const now = (await workerUse(processGroup)).cpuSeconds;
    if (now - last <= (IDLE_WINDOW_MS / 1000) * IDLE_SHARE) return;
    last = now;
  }
}

export function formatUsage(usage: WorkerdUsage): string {
  const limit = usage.openFilesLimit?.toLocaleString("en-US") ?? "?";
  return `${usage.residentMiB} MiB resident, ${usage.openFiles} open files (limit ${limit}), ${usage.processes} workerd`;
}
