import { createServer } from "node:http";
import { freePort } from "../free-port.ts";
import { HOST } from "./servers.ts";

export interface HookReceiver {
  /** The URL the bench's webhook endpoints are registered at. */
  url: string;
  close(): Promise<void>;
}

/**
 * Where the bench's webhook endpoints point: it takes every delivery at
 * once with a 204, so a test delivery or a retry costs both servers one
 * successful attempt and no retry schedule.
 */
export async function startHookReceiver(): Promise<HookReceiver> {
  const port = await freePort();
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(port, HOST, resolve));
  return {
    url: `http://${HOST}:${port}/bench`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
