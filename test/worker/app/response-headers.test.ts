import { beforeAll, describe, expect, it } from "vitest";
import { createPet, freshIp } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { type ApiRequestInit, api } from "../support/request.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let key: string;
let petId: number;

beforeAll(async () => {
  ({ key } = await seedKey());
  petId = (await createPet(key, { name: "Headers", categoryId: 6001 })).id;
});

/** One request of every kind of reply, /v1 or not, success or error. */
const REPLIES: [string, () => [string, ApiRequestInit], number][] = [
  ["health", () => ["/health", {}], 200],
  ["unknown route", () => ["/nope", {}], 404],
  ["405 on /health", () => ["/health", { method: "POST" }], 405],
  ["list", () => ["/v1/pets?limit=2", { key }], 200],
  [
    "create",
    () => ["/v1/pets", { method: "POST", key, json: { name: "H", categoryId: 6002 } }],
    201,
  ],
  ["get", () => [`/v1/pets/${petId}`, { key }], 200],
  ["validation error", () => ["/v1/pets?limit=abc", { key }], 400],
  [
    "malformed JSON",
    () => [
      "/v1/pets",
      { method: "POST", key, body: "{", headers: { "Content-Type": "application/json" } },
    ],
    400,
  ],
  ["no key", () => ["/v1/pets", { headers: { "CF-Connecting-IP": freshIp() } }], 401],
  ["unknown animal", () => ["/v1/pets/999999", { key }], 404],
  ["unknown /v1 route", () => ["/v1/nope", { key }], 404],
  ["bare /v1", () => ["/v1", { key }], 404],
  ["405 on /v1", () => ["/v1/pets", { method: "DELETE", key }], 405],
  [
    "415",
    () => [
      "/v1/pets",
      { method: "POST", key, body: "{}", headers: { "Content-Type": "text/plain" } },
    ],
    415,
  ],
];

async function send([path, init]: [string, ApiRequestInit]): Promise<Response> {
  const res = await api(path, init);
  await res.arrayBuffer();
  return res;
}

function isV1(path: string): boolean {
  return path === "/v1" || path.startsWith("/v1/") || path.startsWith("/v1?");
}

describe("headers on every reply", () => {
  it.each(REPLIES)(
    "%s: a fresh UUID request id when no cf-ray came",
    async (_, request, status) => {
      const first = await send(request());
      const second = await send(request());
      expect(first.status).toBe(status);
      const ids = [first, second].map((res) => res.headers.get("X-Request-Id") ?? "");
      for (const id of ids) expect(id).toMatch(UUID);
      expect(ids[0]).not.toBe(ids[1]);
    },
  );

  it.each(REPLIES)("%s: echoes the incoming cf-ray as X-Request-Id", async (_, request, status) => {
    const [path, init] = request();
    const ray = `8f${crypto.randomUUID().slice(0, 14).replace("-", "")}-AMS`;
    const headers = new Headers(init.headers);
    headers.set("cf-ray", ray);
    const res = await send([path, { ...init, headers }]);
    expect(res.status).toBe(status);
    expect(res.headers.get("X-Request-Id")).toBe(ray);
  });

  it.each(REPLIES)("%s: X-Content-Type-Options: nosniff", async (_, request, status) => {
    const res = await send(request());
    expect(res.status).toBe(status);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  });

  it.each(REPLIES.filter(([, request]) => isV1(request()[0])))(
    "%s: Cache-Control: no-store on /v1",
    async (_, request, status) => {
      const res = await send(request());
      expect(res.status).toBe(status);
      expect(res.headers.get("Cache-Control")).toBe("no-store");
    },
  );

  it("answers with JSON on every route", async () => {
    for (const [, request] of REPLIES) {
      const res = await api(...request());
      expect(res.headers.get("Content-Type"), request()[0]).toMatch(/^application\/json\b/);
      await res.json();
    }
  });
});
