import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A webhook receiver for tests, on a loopback port: it records every
 * request it gets, and answers as the first segment of its path says:
 *
 *   /ok/NAME          200
 *   /fail/NAME        500
 *   /slow-N/NAME      200, but only after SLOW_MS (longer than the tests' timeout) for the
 *                     first N requests, then at once
 *   /redirect/NAME    302 to /ok/NAME (which must not be followed)
 *   /flaky-N/NAME     500 for the first N requests, then 200
 *   /throttle-N/NAME  429 with `Retry-After: N` for the first request, then 200
 *   /gone/NAME        410
 *   /hang/NAME        never answers (until the receiver closes)
 *
 * `GET /received/NAME` answers with what NAME's path received, in order.
 */

export interface ReceivedRequest {
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  /** Unix milliseconds when the request arrived. */
  receivedAt: number;
}

export const SLOW_MS = 3_000;

export interface Receiver {
  url: string;
  port: number;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === "string") headers[name] = value;
  }
  return headers;
}

function reply(response: ServerResponse, status: number, headers: Record<string, string> = {}) {
  response.writeHead(status, { "Content-Type": "text/plain", ...headers });
  response.end(status < 300 ? "ok" : String(status));
}

export function startReceiver(): Promise<Receiver> {
  const received = new Map<string, ReceivedRequest[]>();
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const [, scenario = "", name = ""] = url.pathname.split("/");
    if (request.method === "GET" && scenario === "received") {
      response.writeHead(200, { "Content-Type": "application/json" });
      response.end(JSON.stringify(received.get(name) ?? []));
      return;
    }
    const body = await readBody(request);
    const log = received.get(name) ?? [];
    log.push({
      path: url.pathname,
      method: request.method ?? "",
      headers: headersOf(request),
      body,
      receivedAt: Date.now(),
    });
    received.set(name, log);
    const flaky = /^flaky-(\d+)$/.exec(scenario);
    const slow = /^slow-(\d+)$/.exec(scenario);
    const throttle = /^throttle-(\d+)$/.exec(scenario);
    if (scenario === "ok") reply(response, 200);
    else if (scenario === "gone") reply(response, 410);
    else if (scenario === "hang") return;
    else if (throttle) {
      if (log.length > 1) reply(response, 200);
      else reply(response, 429, { "Retry-After": throttle[1] ?? "0" });
    } else if (scenario === "fail") reply(response, 500);
    else if (scenario === "redirect") reply(response, 302, { Location: `/ok/${name}` });
    else if (slow && log.length <= Number(slow[1])) setTimeout(() => reply(response, 200), SLOW_MS);
    else if (slow) reply(response, 200);
    else if (flaky) reply(response, log.length > Number(flaky[1]) ? 200 : 500);
    else reply(response, 404);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** A loopback port nothing listens on: one the system just handed out and took back. */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
