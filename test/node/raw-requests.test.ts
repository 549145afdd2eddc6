import net from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { adminKey, sharedServer } from "./cli.ts";

/*
 * Requests as a client's socket can send them and no fetch does: a body cut
 * off before its Content-Length or inside a chunk, and an empty header
 * field. Sent over TCP to the real `npm start`, so what the runtime makes of
 * them is part of what is tested. Locally, wrangler's dev proxy stands
 * between the socket and the Worker: when the client's body breaks off, the
 * proxy loses its own request to the Worker and answers the client itself
 * (a text/plain 500, "Network connection lost", logged as "Error inside
 * ProxyWorker"), so the Worker's answer is read from its own log line,
 * found by the cf-ray sent (its request id).
 */

const local = sharedServer();

let key: string;
let petId: number;

beforeAll(async () => {
  key = await adminKey(local, { account: "raw-requests@example.com", plan: "pro" });
  const created = await fetch(`${local.server.origin}/v1/pets`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Frayed", categoryId: 1 }),
  });
  expect(created.status).toBe(201);
  petId = ((await created.json()) as { id: number }).id;
});

/** How long a client sends nothing before it closes: the Worker has its request by then. */
const SENDING_MS = 500;

interface RawReply {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** The body of a reply sent in chunks, put back together. */
function dechunked(text: string): string {
  let rest = text;
  let body = "";
  for (;;) {
    const end = rest.indexOf("\r\n");
    const size = Number.parseInt(rest.slice(0, end), 16);
    if (!(size > 0)) return body;
    body += rest.slice(end + 2, end + 2 + size);
    rest = rest.slice(end + 2 + size + 2);
  }
}

/**
 * Writes the request's head and then `body` on a fresh connection, closes
 * its sending half a moment later, and reads the reply until the server
 * closes.
 */
function exchange(ray: string, head: string[], body: string): Promise<RawReply> {
  const { hostname, port } = new URL(local.server.origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = "";
    socket.setEncoding("utf8");
    socket.setTimeout(30_000, () => {
      socket.destroy();
      reject(new Error(`no reply within 30 s; got ${JSON.stringify(received)}`));
    });
    socket.on("data", (data: string) => {
      received += data;
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const split = received.indexOf("\r\n\r\n");
      const [statusLine = "", ...fields] = received.slice(0, split).split("\r\n");
      const headers = new Map(
        fields.map((field) => {
          const colon = field.indexOf(":");
          return [field.slice(0, colon).toLowerCase(), field.slice(colon + 1).trim()];
        }),
      );
      const raw = received.slice(split + 4);
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers,
        body: headers.get("transfer-encoding") === "chunked" ? dechunked(raw) : raw,
      });
    });
    const { host } = new URL(local.server.origin);
    const fields = [...head, `Host: ${host}`, `cf-ray: ${ray}`, "Connection: close"];
    socket.write([...fields, "", body].join("\r\n"));
    // Sending stops here; the half-close waits until the Worker has the request.
    setTimeout(() => socket.end(), SENDING_MS);
  });
}

/** The Worker's log lines of the request with this id. */
function loggedFor(ray: string): { level: string; message: string; status?: number }[] {
  return local.server
    .output()
    .split("\n")
    .filter((line) => line.includes(`"requestId":"${ray}"`))
    .map((line) => JSON.parse(line.slice(line.indexOf("{"), line.lastIndexOf("}") + 1)));
}

/**
 * Asserts that the Worker answered `status` with `code`'s JSON, or (locally)
 * that the dev proxy answered for it, and that the Worker logged its answer
 * as that status and logged no error.
 */
async function expectRefusal(ray: string, reply: RawReply, status: number, code: string) {
  if (reply.headers.has("x-request-id")) {
    expect(reply.status, reply.body).toBe(status);
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    expect(JSON.parse(reply.body)).toMatchObject({ code, status });
  } else {
    expect(reply.status).toBe(500);
    expect(reply.body).toMatch(/^Error: Network connection lost\./);
  }
  // The Worker's log line of a request is printed a moment after its answer.
  const deadline = Date.now() + 10_000;
  while (loggedFor(ray).length === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(loggedFor(ray)).toEqual([
    expect.objectContaining({ level: "info", message: "request", status }),
  ]);
}

describe("a request body cut off", () => {
  /** A POST of `type` whose body, framed as `framing` says, stops at `sent`. */
  async function cutOff(path: string, type: string, framing: string, sent: string) {
    const ray = `cut-${crypto.randomUUID()}`;
    const head = [`POST ${path} HTTP/1.1`, `Authorization: Bearer ${key}`, `Content-Type: ${type}`];
    return { ray, reply: await exchange(ray, [...head, framing], sent) };
  }
  const json = '{"name":"abc","categ';

  it("in the middle of a chunk of a photo upload: 400, and no error logged", async () => {
    const chunk = `3e8\r\n${"x".repeat(111)}`;
    const { ray, reply } = await cutOff(
      `/v1/pets/${petId}/photos`,
      "image/jpeg",
      "Transfer-Encoding: chunked",
      chunk,
    );
    await expectRefusal(ray, reply, 400, "invalid_request");
  });

  it("in the middle of a chunk of a JSON body: 400 invalid_json, and no error logged", async () => {
    const chunked = "Transfer-Encoding: chunked";
    const { ray, reply } = await cutOff("/v1/pets", "application/json", chunked, `3e8\r\n${json}`);
    await expectRefusal(ray, reply, 400, "invalid_json");
  });

  it("before its Content-Length: 400 invalid_json, and no error logged", async () => {
    const promised = "Content-Length: 100";
    const { ray, reply } = await cutOff("/v1/pets", "application/json", promised, json);
    await expectRefusal(ray, reply, 400, "invalid_json");
  });
});

describe("an empty If-Match field", () => {
  const patch = (ray: string, ifMatch: string) =>
    exchange(
      ray,
      [
        `PATCH /v1/pets/${petId} HTTP/1.1`,
        `Authorization: Bearer ${key}`,
        "Content-Type: application/json",
        `Content-Length: ${'{"name":"Mended"}'.length}`,
        `If-Match:${ifMatch}`,
      ],
      '{"name":"Mended"}',
    );

  it("never reaches the Worker: workerd drops it, so the change is unconditional (the README says so)", async () => {
    // workerd leaves out an empty If-Match, If-None-Match or If-Unmodified-Since
    // of a request it receives, though it keeps other empty fields; the
    // Worker refuses an empty If-Match that reaches it. Should this start to
    // fail, the runtime passes the field on: expect 400 here then.
    const before = await fetch(`${local.server.origin}/v1/pets/${petId}`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    const { etag } = (await before.json()) as { etag: string };
    const reply = await patch(`empty-${crypto.randomUUID()}`, "");
    expect(reply.status, reply.body).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ name: "Mended" });
    expect(JSON.parse(reply.body).etag).not.toBe(etag);
  });

  it("of only a comma reaches it, and is 400", async () => {
    const reply = await patch(`comma-${crypto.randomUUID()}`, " ,");
    expect(reply.status, reply.body).toBe(400);
    expect(JSON.parse(reply.body)).toMatchObject({
      code: "invalid_request",
      details: [{ path: "If-Match" }],
    });
  });
});
