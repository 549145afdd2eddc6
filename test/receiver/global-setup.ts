import type { TestProject } from "vitest/node";
import { closedPort, startReceiver } from "./receiver.ts";

declare module "vitest" {
  export interface ProvidedContext {
    receiverPort: number;
    closedPort: number;
  }
}

/** One receiver for the Worker's tests, on a loopback port the Worker under test can reach. */
export default async function setup(project: TestProject) {
  const receiver = await startReceiver();
  project.provide("receiverPort", receiver.port);
  project.provide("closedPort", await closedPort());
  return () => receiver.close();
}
