import type { ChildProcess } from "node:child_process";

/**
 * Sends `signal` to the whole process group of a child spawned `detached`:
 * wrangler, npm and bash start children of their own, and a signal to the
 * leader alone would leave its workerd running.
 */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Nothing of the group is left.
  }
}

/**
 * Stops a detached child and everything it started: `signal` to its group,
 * SIGKILL if it lingers past `graceMs`, and SIGKILL once it has closed for
 * any grandchild that outlived it.
 */
export function stopGroup(
  child: ChildProcess,
  signal: NodeJS.Signals,
  graceMs: number,
): Promise<void> {
  if (child.pid === undefined) return Promise.resolve();
  if (child.exitCode !== null || child.signalCode !== null) {
    signalGroup(child, "SIGKILL");
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const killer = setTimeout(() => signalGroup(child, "SIGKILL"), graceMs);
    child.once("close", () => {
      clearTimeout(killer);
      signalGroup(child, "SIGKILL");
      resolve();
    });
    signalGroup(child, signal);
  });
}
