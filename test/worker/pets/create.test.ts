import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createCategory,
  createPet,
  expectError,
  expectPet,
  freshIp,
  UNKNOWN_PROFILE,
} from "../support/assertions.ts";
import { streamOf } from "../support/bodies.ts";
import { seedKey } from "../support/keys.ts";
import { api, jsonOf, ORIGIN, postJson } from "../support/request.ts";

const MAX_ID = 9007199254740991;
// createPet takes 64 KiB, room for a description of 4,000 escaped characters.
const LIMIT = 64 * 1024;

let key: string;

beforeAll(async () => {
  ({ key } = await seedKey());
});

async function petCount(): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM pets").first<{ n: number }>();
  return row?.n ?? 0;
}

/** POST /v1/pets with a raw body and exactly the headers given (plus the key). */
function postRaw(body: BodyInit | null, headers: Record<string, string> = {}): Promise<Response> {
  return api("/v1/pets", { method: "POST", key, body, headers });
}

/** A valid animal padded with JSON white space to exactly `size` bytes. */
function validBodyOfSize(size: number): string {
  const json = JSON.stringify({ name: "Padded", categoryId: 7 });
  return json + " ".repeat(size - json.length);
}

function postStream(text: string): Promise<Response> {
  const request = new Request(`${ORIGIN}/v1/pets`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: streamOf(text),
  });
  // The point of these cases: the size is unknown until the body has been read.
  expect(request.headers.has("Content-Length")).toBe(false);
  return exports.default.fetch(request);
}

describe("POST /v1/pets — happy path", () => {
  it("answers 201 with every key, its etag as ETag, and a Location that serves the same animal", async () => {
    const res = await postJson("/v1/pets", key, { name: "Rex", categoryId: 7, status: "pending" });
    expect(res.status).toBe(201);
    const pet = await jsonOf<{ id: number }>(res);
    expectPet(pet);
    expect(pet).toEqual({
      id: pet.id,
      name: "Rex",
      categoryId: 7,
      status: "pending",
      ...UNKNOWN_PROFILE,
      etag: '"1"',
      photoUrls: [],
    });
    expect(res.headers.get("ETag")).toBe('"1"');
    expect(res.headers.get("Location")).toBe(`/v1/pets/${pet.id}`);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json\b/);

    const fetched = await api(res.headers.get("Location") ?? "", { key });
    expect(fetched.status).toBe(200);
    expect(await fetched.json()).toEqual(pet);
  });

  it("assigns a new, increasing id to every animal", async () => {
    const first = await createPet(key, { name: "One", categoryId: 1 });
    const second = await createPet(key, { name: "Two", categoryId: 1 });
    expect(second.id).toBeGreaterThan(first.id);
  });

  it("defaults status to available", async () => {
    const pet = await createPet(key, { name: "Fido", categoryId: 2 });
    expect(pet.status).toBe("available");
    const fetched = await api(`/v1/pets/${pet.id}`, { key });
    expect(await fetched.json()).toMatchObject({ status: "available" });
  });

  it.each(["available", "pending", "sold"] as const)("accepts status %s", async (status) => {
    const pet = await createPet(key, { name: "Stat", categoryId: 3, status });
    expect(pet.status).toBe(status);
  });

  it("accepts a name of exactly 100 characters, and a 1-character name", async () => {
    const long = "n".repeat(100);
    expect((await createPet(key, { name: long, categoryId: 4 })).name).toBe(long);
    expect((await createPet(key, { name: "x", categoryId: 4 })).name).toBe("x");
  });

  it("counts characters, not bytes: 100 emoji-free non-ASCII characters fit", async () => {
    const name = "é".repeat(100);
    expect((await createPet(key, { name, categoryId: 5 })).name).toBe(name);
  });

  it("stores the name as sent, surrounding white space included", async () => {
    const pet = await createPet(key, { name: "  Rex ", categoryId: 6 });
    expect(pet.name).toBe("  Rex ");
    const fetched = await api(`/v1/pets/${pet.id}`, { key });
    expect(await fetched.json()).toMatchObject({ name: "  Rex " });
  });

  it("accepts categoryId 1 and a category made since, and returns them exactly", async () => {
    expect((await createPet(key, { name: "Min", categoryId: 1 })).categoryId).toBe(1);
    const { id } = await createCategory(key, "Made since");
    expect((await createPet(key, { name: "Newer", categoryId: id })).categoryId).toBe(id);
  });

  it("accepts application/json with parameters, in any letter case", async () => {
    const body = JSON.stringify({ name: "Charset", categoryId: 7 });
    for (const type of ["application/json; charset=utf-8", "Application/JSON"]) {
      const res = await postRaw(body, { "Content-Type": type });
      expect(res.status, type).toBe(201);
      expectPet(await res.json());
    }
  });

  it("accepts a body of exactly 64 KiB, with or without Content-Length", async () => {
    const body = validBodyOfSize(LIMIT);
    expect(new TextEncoder().encode(body).byteLength).toBe(LIMIT);
    const sized = await postRaw(body, { "Content-Type": "application/json" });
    expect(sized.status).toBe(201);
    expectPet(await sized.json());
    const streamed = await postStream(body);
    expect(streamed.status).toBe(201);
    expectPet(await streamed.json());
  });
});

describe("POST /v1/pets — bad input", () => {
  /** Each case must be refused with 400 invalid_request, name the field, and create nothing. */
  const invalid: [string, unknown, string[]][] = [
    ["missing name", { categoryId: 1 }, ["name"]],
    ["empty name", { name: "", categoryId: 1 }, ["name"]],
    ["whitespace-only name", { name: " \t\n ", categoryId: 1 }, ["name"]],
    ["101-character name", { name: "n".repeat(101), categoryId: 1 }, ["name"]],
    ["name as a number", { name: 42, categoryId: 1 }, ["name"]],
    ["missing categoryId", { name: "Rex" }, ["categoryId"]],
    ["non-integer categoryId", { name: "Rex", categoryId: 1.5 }, ["categoryId"]],
    ["zero categoryId", { name: "Rex", categoryId: 0 }, ["categoryId"]],
    ["negative categoryId", { name: "Rex", categoryId: -1 }, ["categoryId"]],
    ["categoryId over 2^53−1", { name: "Rex", categoryId: MAX_ID + 1 }, ["categoryId"]],
    ["categoryId as a string", { name: "Rex", categoryId: "1" }, ["categoryId"]],
    ["categoryId null", { name: "Rex", categoryId: null }, ["categoryId"]],
    ["unknown status", { name: "Rex", categoryId: 1, status: "adopted" }, ["status"]],
    ["status in the wrong case", { name: "Rex", categoryId: 1, status: "Sold" }, ["status"]],
    ["unknown field", { name: "Rex", categoryId: 1, colour: "brown" }, ["colour"]],
    ["id in the body", { id: 7, name: "Rex", categoryId: 1 }, ["id"]],
    ["array body", [{ name: "Rex", categoryId: 1 }], ["body"]],
    ["null body", null, ["body"]],
    ["string body", "Rex", ["body"]],
    ["number body", 1, ["body"]],
  ];

  it.each(invalid)("refuses %s with 400 invalid_request", async (_, json, paths) => {
    const before = await petCount();
    const res = await postRaw(JSON.stringify(json), { "Content-Type": "application/json" });
    const error = await expectError(res, 400, "invalid_request", { paths });
    // The message names the field too, for people reading logs rather than details.
    for (const path of paths) expect(error.message).toContain(path);
    expect(await petCount()).toBe(before);
  });

  it.each([
    ["one no category has had", 999_999],
    ["2^53−1", MAX_ID],
  ])(
    "refuses a categoryId naming no category (%s) with 422 unknown_category, adding nothing",
    async (_, categoryId) => {
      const before = await petCount();
      const res = await postJson("/v1/pets", key, { name: "Rex", categoryId });
      await expectError(res, 422, "unknown_category", { paths: ["categoryId"] });
      expect(await petCount()).toBe(before);
    },
  );

  it("refuses a deleted category with 422 unknown_category", async () => {
    const { id } = await createCategory(key, "Soon gone");
    const gone = await api(`/v1/categories/${id}`, { method: "DELETE", key });
    expect(gone.status).toBe(204);
    const res = await postJson("/v1/pets", key, { name: "Rex", categoryId: id });
    await expectError(res, 422, "unknown_category", { paths: ["categoryId"] });
  });

  it("reports every invalid field at once", async () => {
    const res = await postJson("/v1/pets", key, { name: "", categoryId: 0, status: "x" });
    const error = await expectError(res, 400, "invalid_request", {
      paths: ["name", "categoryId", "status"],
    });
    expect(error.details).toHaveLength(3);
  });

  it.each([
    ["malformed JSON", '{"name": "Rex", "categoryId": '],
    ["trailing garbage", '{"name": "Rex", "categoryId": 1} x'],
    ["single quotes", "{'name': 'Rex', 'categoryId': 1}"],
    ["empty body", ""],
    ["white space only", "   "],
  ])("refuses %s with 400 invalid_json and no details", async (_, body) => {
    const before = await petCount();
    const res = await postRaw(body, { "Content-Type": "application/json" });
    await expectError(res, 400, "invalid_json");
    expect(await petCount()).toBe(before);
  });

  it("refuses a POST with no body at all as invalid_json", async () => {
    const res = await postRaw(null, { "Content-Type": "application/json" });
    await expectError(res, 400, "invalid_json");
  });

  it("refuses bytes that are not UTF-8 as invalid_json", async () => {
    const res = await postRaw(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), {
      "Content-Type": "application/json",
    });
    await expectError(res, 400, "invalid_json");
  });

  it("reads each body afresh: one cut inside a character, then one that starts with a BOM", async () => {
    const cut = await postRaw(new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc3]), {
      "Content-Type": "application/json",
    });
    await expectError(cut, 400, "invalid_json");
    const whole = await postRaw(
      new TextEncoder().encode(`\uFEFF${JSON.stringify({ name: "Bélla", categoryId: 1 })}`),
      { "Content-Type": "application/json" },
    );
    expect(whole.status).toBe(201);
    expect(((await whole.json()) as { name: string }).name).toBe("Bélla");
  });

  it("refuses a body without Content-Type with 415", async () => {
    // Bytes, not a string: a string body would make the Request add text/plain itself.
    const body = new TextEncoder().encode(JSON.stringify({ name: "Rex", categoryId: 1 }));
    const before = await petCount();
    const res = await postRaw(body);
    await expectError(res, 415, "unsupported_media_type");
    expect(await petCount()).toBe(before);
  });

  it.each([
    "text/plain",
    "text/plain; charset=utf-8",
    "application/x-www-form-urlencoded",
    "application/jsonp",
    "application/json-patch+json",
    "multipart/form-data; boundary=x",
  ])("refuses Content-Type %s with 415", async (type) => {
    const res = await postRaw(JSON.stringify({ name: "Rex", categoryId: 1 }), {
      "Content-Type": type,
    });
    await expectError(res, 415, "unsupported_media_type");
  });

  it("refuses a body over 64 KiB with 413 when Content-Length announces it", async () => {
    const body = validBodyOfSize(LIMIT + 1);
    const before = await petCount();
    const res = await postRaw(body, { "Content-Type": "application/json" });
    await expectError(res, 413, "payload_too_large");
    expect(await petCount()).toBe(before);
  });

  it("refuses a streamed body over 64 KiB with 413 though no Content-Length was sent", async () => {
    const before = await petCount();
    await expectError(await postStream(validBodyOfSize(LIMIT + 1)), 413, "payload_too_large");
    await expectError(await postStream(validBodyOfSize(LIMIT * 8)), 413, "payload_too_large");
    expect(await petCount()).toBe(before);
  });

  it("checks the media type before the size", async () => {
    const res = await postRaw(validBodyOfSize(LIMIT + 1), { "Content-Type": "text/plain" });
    await expectError(res, 415, "unsupported_media_type");
  });
});

describe("POST /v1/pets — auth", () => {
  it("refuses a request without a key with 401 and creates nothing", async () => {
    const before = await petCount();
    const res = await api("/v1/pets", {
      method: "POST",
      json: { name: "Sneaky", categoryId: 1 },
      headers: { "CF-Connecting-IP": freshIp() },
    });
    await expectError(res, 401, "unauthorized");
    expect(await petCount()).toBe(before);
  });

  it("authenticates before it looks at the body", async () => {
    for (const body of ["{not json", JSON.stringify({ id: 1 })]) {
      const res = await api("/v1/pets", {
        method: "POST",
        body,
        headers: { "Content-Type": "application/json", "CF-Connecting-IP": freshIp() },
      });
      await expectError(res, 401, "unauthorized");
    }
    const res = await api("/v1/pets", {
      method: "POST",
      body: "x",
      headers: { "Content-Type": "text/plain", "CF-Connecting-IP": freshIp() },
    });
    await expectError(res, 401, "unauthorized");
  });
});
