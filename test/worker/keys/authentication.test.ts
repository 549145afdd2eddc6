import { beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../../src/keys/key-format.ts";
import { createPet, expectError, freshIp } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { api } from "../support/request.ts";

const CHALLENGE = 'Bearer realm="petstore"';
const INVALID_TOKEN = 'Bearer realm="petstore", error="invalid_token"';

let key: string;
let petId: number;
/** The message of the first 401 seen; every later one must match it word for word. */
let firstMessage: string | undefined;

beforeAll(async () => {
  ({ key } = await seedKey());
  petId = (await createPet(key, { name: "Guarded", categoryId: 5 })).id;
});

const OPERATIONS: [string, (authorization?: string) => Promise<Response>][] = [
  ["listPets", (authorization) => send("/v1/pets", authorization)],
  [
    "createPet",
    (authorization) =>
      send("/v1/pets", authorization, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: "Nope", categoryId: 6 }),
      }),
  ],
  ["getPet", (authorization) => send(`/v1/pets/${petId}`, authorization)],
];

/** A request from its own client address, so the keyless budget never binds. */
function send(path: string, authorization?: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("CF-Connecting-IP", freshIp());
  if (authorization !== undefined) headers.set("Authorization", authorization);
  return api(path, { ...init, headers });
}

/** 401 unauthorized, the one message, and the challenge expected for what was sent. */
async function expectRefused(res: Response, challenge: string): Promise<void> {
  const error = await expectError(res, 401, "unauthorized");
  firstMessage ??= error.message;
  expect(error.message).toBe(firstMessage);
  expect(res.headers.get("WWW-Authenticate")).toBe(challenge);
  expect(res.headers.get("Cache-Control")).toBe("no-store");
}

describe("authentication — happy path", () => {
  it.each(OPERATIONS)("admits %s with a valid key", async (_, operation) => {
    const res = await operation(`Bearer ${key}`);
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get("WWW-Authenticate")).toBeNull();
    await res.json();
  });

  it.each(["bearer", "BEARER", "BeArEr"])("accepts the scheme written %s", async (scheme) => {
    const res = await send("/v1/pets?limit=1", `${scheme} ${key}`);
    expect(res.status).toBe(200);
    await res.json();
  });

  it("accepts extra white space around the key", async () => {
    const res = await send("/v1/pets?limit=1", `Bearer   ${key}\t`);
    expect(res.status).toBe(200);
    await res.json();
  });

  it("accepts a key whose expiry is still ahead", async () => {
    const future = await seedKey({ expiresAt: Date.now() + 3_600_000 });
    const res = await send("/v1/pets?limit=1", `Bearer ${future.key}`);
    expect(res.status).toBe(200);
    await res.json();
  });
});

describe("authentication — refused", () => {
  it.each(OPERATIONS)("refuses %s without an Authorization header", async (_, operation) => {
    await expectRefused(await operation(), CHALLENGE);
  });

  it.each(OPERATIONS)("refuses %s with an unknown well-formed key", async (_, operation) => {
    await expectRefused(await operation(`Bearer ${generateApiKey("ps_test_")}`), INVALID_TOKEN);
  });

  it("refuses an unknown production-style key", async () => {
    const res = await send("/v1/pets", `Bearer ${generateApiKey("ps_live_")}`);
    await expectRefused(res, INVALID_TOKEN);
  });

  it.each<[string, () => string]>([
    ["not a key at all", () => "hunter2"],
    ["the right prefix but too short", () => "ps_test_abc"],
    ["a valid key with one character too many", () => `${key}x`],
    ["a valid key with a character missing", () => key.slice(0, -1)],
    ["an unknown prefix", () => `sk_test_${key.slice(8)}`],
    ["characters outside base62", () => `${key.slice(0, -1)}-`],
    ["two tokens", () => `${key} ${key}`],
  ])("refuses a malformed key: %s", async (_, token) => {
    await expectRefused(await send("/v1/pets", `Bearer ${token()}`), INVALID_TOKEN);
  });

  it.each(OPERATIONS)("refuses %s with a revoked key", async (_, operation) => {
    const revoked = await seedKey({ revoked: true });
    await expectRefused(await operation(`Bearer ${revoked.key}`), INVALID_TOKEN);
  });

  it.each(OPERATIONS)("refuses %s with an expired key", async (_, operation) => {
    const expired = await seedKey({ expiresAt: Date.now() - 1000 });
    await expectRefused(await operation(`Bearer ${expired.key}`), INVALID_TOKEN);
  });

  it("refuses the Basic scheme, even carrying a valid key, with the plain challenge", async () => {
    await expectRefused(await send("/v1/pets", `Basic ${btoa(`user:${key}`)}`), CHALLENGE);
    await expectRefused(await send("/v1/pets", `Basic ${key}`), CHALLENGE);
  });

  it("refuses a key sent without any scheme", async () => {
    await expectRefused(await send("/v1/pets", key), CHALLENGE);
  });

  it.each([
    ["an empty header", ""],
    ["a bare Bearer", "Bearer"],
    ["Bearer and spaces", "Bearer    "],
  ])("refuses %s with the plain challenge", async (_, authorization) => {
    await expectRefused(await send("/v1/pets", authorization), CHALLENGE);
  });

  it("refuses the key in the query string instead of the header", async () => {
    await expectRefused(await send(`/v1/pets?api_key=${key}&access_token=${key}`), CHALLENGE);
  });

  it("refuses unknown /v1 paths without a key before saying they do not exist", async () => {
    await expectRefused(await send("/v1/nope"), CHALLENGE);
    await expectRefused(await send("/v1"), CHALLENGE);
  });

  it("never echoes the key that was sent", async () => {
    const unknown = generateApiKey("ps_test_");
    const res = await send("/v1/pets", `Bearer ${unknown}`);
    const headers = [...res.headers].map(([name, value]) => `${name}: ${value}`).join("\n");
    const error = await expectError(res, 401, "unauthorized");
    expect(JSON.stringify(error)).not.toContain(unknown.slice(8));
    expect(headers).not.toContain(unknown.slice(8));
  });
});

describe("authentication — public paths", () => {
  it("serves /health without a key", async () => {
    const res = await send("/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });
});
