import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedCall {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/** Stands in for the running Worker's operator endpoint and records what it is told. */
export async function startFakeWorker(status = 204): Promise<{
  url: string;
  calls: ReceivedCall[];
  close: () => Promise<void>;
}> {
  const calls: ReceivedCall[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      calls.push({
        method: request.method ?? "",
        path: request.url ?? "",
        authorization: request.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "null"),
      });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A local address where nothing listens: a port that was free a moment ago. */
export async function unusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
