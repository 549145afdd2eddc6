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
 * Reads /proc for the workerd processes in a server's process group (Linux
 * only; elsewhere it reports no processes). A process that exits while being
 * read is skipped.
 */
export async function workerdUsage(processGroup: number): Promise<WorkerdUsage> {
  const pids = await readdir("/proc").catch(() => [] as string[]);
  const found = await Promise.all(
    pids
      .filter((pid) => /^\d+$/.test(pid))
      .map(async (pid) => {
        try {
          const comm = (await readFile(`/proc/${pid}/comm`, "utf8")).trim();
          if (comm !== "workerd") return null;
          const stat = await readFile(`/proc/${pid}/stat`, "utf8");
          return processGroupOf(stat) === processGroup ? await usageOf(pid) : null;
        } catch {
          return null;
        }
      }),
  );
  const mine = found.filter((usage) => usage !== null);
  const limits = mine.flatMap((u) => (u.openFilesLimit === null ? [] : [u.openFilesLimit]));
  return {
    processes: mine.length,
    residentMiB: Math.round(mine.reduce((sum, u) => sum + u.residentKiB, 0) / 1024),
    openFiles: mine.reduce((sum, u) => sum + u.openFiles, 0),
    openFilesLimit: limits.length > 0 ? Math.min(...limits) : null,
  };
}

export function formatUsage(usage: WorkerdUsage): string {
  const limit = usage.openFilesLimit?.toLocaleString("en-US") ?? "?";
  return `${usage.residentMiB} MiB resident, ${usage.openFiles} open files (limit ${limit}), ${usage.processes} workerd`;
}
