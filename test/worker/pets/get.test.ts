import { env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type CreatedPet,
  createPet,
  expectError,
  expectPet,
  freshIp,
} from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { api } from "../support/request.ts";

const SUNSET = "Thu, 05 Dec 2030 00:00:00 GMT";
/** The successor is the listing's `id` filter, for the id the request named, as it named it. */
const link = (id: string | number) =>
  `</v1/pets?id=${id}>; rel="successor-version", </docs>; rel="deprecation"`;

let key: string;
let pet: CreatedPet;

beforeAll(async () => {
  ({ key } = await seedKey());
  pet = await createPet(key, { name: "Bella", categoryId: 6, status: "sold" });
});

afterEach(() => {
  vi.useRealTimers();
});

/** The three marks of the deprecated operation, on whatever reply it gives. */
function expectDeprecationHeaders(res: Response, id: string | number): void {
  const deprecatedAt = Math.floor(Date.parse(env.GET_PET_DEPRECATED_AT) / 1000);
  expect(Number.isSafeInteger(deprecatedAt)).toBe(true);
  expect(res.headers.get("Deprecation")).toBe(`@${deprecatedAt}`);
  expect(res.headers.get("Sunset")).toBe(SUNSET);
  expect(res.headers.get("Link")).toBe(link(id));
}

function anonymous(): { headers: Record<string, string> } {
  return { headers: { "CF-Connecting-IP": freshIp() } };
}

describe("GET /v1/pets/{petId} — happy path", () => {
  it("returns the animal with all six keys, its etag as ETag", async () => {
    const res = await api(`/v1/pets/${pet.id}`, { key });
    expect(res.status).toBe(200);
    const body = await res.json();
    expectPet(body);
    expect(body).toEqual(pet);
    expect(res.headers.get("ETag")).toBe(pet.etag);
  });

  it("marks a success as deprecated, with sunset and successor", async () => {
    const res = await api(`/v1/pets/${pet.id}`, { key });
    await res.json();
    expect(res.status).toBe(200);
    expectDeprecationHeaders(res, pet.id);
  });

  it("still answers an instant before the sunset", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.parse("2030-12-05T00:00:00Z") - 1);
    const res = await api(`/v1/pets/${pet.id}`, { key });
    expect(await res.json()).toEqual(pet);
    expect(res.status).toBe(200);
    expectDeprecationHeaders(res, pet.id);
  });
});

describe("GET /v1/pets/{petId} — after the sunset", () => {
  it.each([
    ["at the sunset instant", "2030-12-05T00:00:00Z"],
    ["a year later", "2031-12-05T12:00:00Z"],
  ])("answers 410 gone %s, still marked", async (_, now) => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(now));
    const res = await api(`/v1/pets/${pet.id}`, { key });
    const error = await expectError(res, 410, "gone");
    expect(error.message).toContain("/v1/pets");
    expectDeprecationHeaders(res, pet.id);
  });

  it("answers 410 for unknown and malformed ids too, with the caller's budget", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-12-06T00:00:00Z"));
    for (const id of ["999999999", "abc"]) {
      const res = await api(`/v1/pets/${id}`, { key });
      expect(res.headers.get("X-RateLimit-Remaining")).toMatch(/^[0-9]+$/);
      await expectError(res, 410, "gone");
      expectDeprecationHeaders(res, id);
    }
  });

  it("still asks keyless callers for a key after the sunset, marked as deprecated", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-12-06T00:00:00Z"));
    const res = await api(`/v1/pets/${pet.id}`, anonymous());
    await expectError(res, 401, "unauthorized");
    expectDeprecationHeaders(res, pet.id);
  });

  it("leaves the list operation alone", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2031-01-01T00:00:00Z"));
    const res = await api("/v1/pets?limit=1", { key });
    expect(res.status).toBe(200);
    await res.json();
    expect(res.headers.get("Deprecation")).toBeNull();
    expect(res.headers.get("Sunset")).toBeNull();
  });

  it("serves the animal again once the clock is back before the sunset", async () => {
    const res = await api(`/v1/pets/${pet.id}`, { key });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(pet);
  });
});

describe("GET /v1/pets/{petId} — bad input", () => {
  it("answers 404 not_found, still marked, for an id that does not exist", async () => {
    const res = await api("/v1/pets/9007199254740991", { key });
    await expectError(res, 404, "not_found");
    expectDeprecationHeaders(res, "9007199254740991");
  });

  it.each(["abc", "0", "-1", "1.5", "9007199254740992", "1e400", "%20", "NaN", "Infinity"])(
    "answers 404 not_found, still marked, for the malformed id %s",
    async (id) => {
      const res = await api(`/v1/pets/${id}`, { key });
      const error = await expectError(res, 404, "not_found");
      expect(error).not.toHaveProperty("details");
      expectDeprecationHeaders(res, id);
    },
  );

  it("answers 404 for other spellings of an existing id; only plain decimal names it", async () => {
    const spellings = [
      `0x${pet.id.toString(16)}`,
      `0b${pet.id.toString(2)}`,
      `${pet.id}.0`,
      `${pet.id}e0`,
      `0${pet.id}`,
      `+${pet.id}`,
      `%20${pet.id}`,
      `${pet.id}%20`,
    ];
    for (const id of spellings) {
      const res = await api(`/v1/pets/${id}`, { key });
      expect(res.status, id).toBe(404);
      await expectError(res, 404, "not_found");
    }
  });

  it("gives a malformed id the same reply as a missing one", async () => {
    const missing = await expectError(await api("/v1/pets/123456789", { key }), 404, "not_found");
    const malformed = await expectError(await api("/v1/pets/abc", { key }), 404, "not_found");
    expect(malformed).toEqual(missing);
  });
});

describe("GET /v1/pets/{petId} — auth", () => {
  it("refuses a keyless request with 401, still marked", async () => {
    const res = await api(`/v1/pets/${pet.id}`, anonymous());
    await expectError(res, 401, "unauthorized");
    expectDeprecationHeaders(res, pet.id);
  });

  it("refuses an invalid key with 401, still marked", async () => {
    const res = await api(`/v1/pets/${pet.id}`, { ...anonymous(), key: "ps_test_nope" });
    await expectError(res, 401, "unauthorized");
    expectDeprecationHeaders(res, pet.id);
  });

  it("does not tell a keyless caller whether an id exists", async () => {
    const known = await api(`/v1/pets/${pet.id}`, anonymous());
    const unknown = await api("/v1/pets/987654321", anonymous());
    expect(await expectError(unknown, 401, "unauthorized")).toEqual(
      await expectError(known, 401, "unauthorized"),
    );
  });
});
