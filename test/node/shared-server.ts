import type { TestProject } from "vitest/node";
import { launchServer, makeSandbox } from "./cli.ts";

/**
 * One `npm start` for the Node files that need nothing of their own, stopped
 * after the last. Not awaited here: other files run while it starts.
 */
export default async function setup(project: TestProject) {
  const sandbox = makeSandbox();
  const server = await launchServer(sandbox);
  const { dir, adminToken } = sandbox;
  project.provide("sharedServer", { dir, adminToken, origin: server.origin, log: server.log });
  return async () => {
    await server.stop();
    sandbox.remove();
  };
}
