import { beforeAll, describe, expect, it, vi } from "vitest";
import { findDuplicateKey } from "../../../src/middleware/json-duplicate-keys.ts";
import { cutShort } from "../support/bodies.ts";
import { seedKey } from "../support/keys.ts";
import { api } from "../support/request.ts";

let key: string;

beforeAll(async () => {
  ({ key } = await seedKey({ plan: "enterprise", limits: { perMinute: 1e9, perDay: 1e9 } }));
});

function post(body: BodyInit): Promise<Response> {
  return api("/v1/pets", {
    method: "POST",
    key,
    headers: { "Content-Type": "application/json" },
    body,
  });
}

async function expectClientError(res: Response, status: number, code: string): Promise<void> {
  const body = (await res.json()) as { code: string; status: number; message: string };
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(body.status).toBe(status);
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
}

describe("hostile bodies get a clean 4xx", () => {
  it("rejects deep nesting at the top level and inside a field", async () => {
    await expectClientError(
      await post("[".repeat(8000) + "]".repeat(8000)),
      400,
      "invalid_request",
    );
    await expectClientError(
      await post(`{"name":${"[".repeat(5000)}${"]".repeat(5000)},"categoryId":1}`),
      400,
      "invalid_request",
    );
    await expectClientError(
      await post(`${'{"a":'.repeat(2500)}1${"}".repeat(2500)}`),
      400,
      "invalid_request",
    );
  });

  it("rejects huge and unsafe numbers", async () => {
    await expectClientError(
      await post('{"name":"Rex","categoryId":1e400}'),
      400,
      "invalid_request",
    );
    await expectClientError(
      await post('{"name":"Rex","categoryId":9007199254740993}'),
      400,
      "invalid_request",
    );
    await expectClientError(
      await post(`{"name":"Rex","categoryId":${"9".repeat(5000)}}`),
      400,
      "invalid_request",
    );
  });

  it("rejects duplicate keys, even when spelled with escapes", async () => {
    await expectClientError(
      await post('{"name":"Rex","name":"Max","categoryId":1}'),
      400,
      "invalid_json",
    );
    await expectClientError(
      await post('{"name":"Rex","n\\u0061me":"Max","categoryId":1}'),
      400,
      "invalid_json",
    );
  });

  it("rejects __proto__ and constructor keys as unknown fields", async () => {
    await expectClientError(
      await post('{"name":"Rex","categoryId":1,"__proto__":{"status":"sold"}}'),
      400,
      "invalid_request",
    );
    await expectClientError(
      await post('{"name":"Rex","categoryId":1,"constructor":{"prototype":{}}}'),
      400,
      "invalid_request",
    );
  });

  it("rejects invalid UTF-8 and raw NUL bytes", async () => {
    const invalidUtf8 = new Uint8Array([
      ...new TextEncoder().encode('{"name":"'),
      0xc3,
      0x28,
      ...new TextEncoder().encode('","categoryId":1}'),
    ]);
    await expectClientError(await post(invalidUtf8), 400, "invalid_json");
    await expectClientError(await post('{"name":"Re\u0000x","categoryId":1}'), 400, "invalid_json");
  });

  it("rejects control characters, escaped NUL included, in a name", async () => {
    await expectClientError(
      await post('{"name":"Re\\u0000x","categoryId":1}'),
      400,
      "invalid_request",
    );
    await expectClientError(
      await post('{"name":"Re\\u001bx","categoryId":1}'),
      400,
      "invalid_request",
    );
  });
});

describe("bodies cut short", () => {
  it("answer 400 invalid_json and log nothing at error level", async () => {
    const errors = vi.spyOn(console, "error");
    const res = await api("/v1/pets", {
      method: "POST",
      key,
      headers: { "Content-Type": "application/json" },
      body: cutShort('{"name":"Re', 100),
    });
    await expectClientError(res, 400, "invalid_json");
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
  });
});

describe("strings that are not well-formed Unicode", () => {
  it.each([
    ["a lone high surrogate", '"\\ud800"'],
    ["a lone low surrogate", '"Rex\\udc00"'],
    ["a high surrogate without its pair", '"\\ud83dRex"'],
  ])("refuse %s in a name with 400 invalid_request naming the field", async (_case, name) => {
    const res = await post(`{"name":${name},"categoryId":1}`);
    const body = (await res.json()) as { code: string; details?: { path: string }[] };
    expect(res.status).toBe(400);
    expect(body.code).toBe("invalid_request");
    expect(body.details?.map((detail) => detail.path)).toEqual(["name"]);
  });

  it("accept a name of 100 characters outside the BMP, which is 200 UTF-16 units", async () => {
    const res = await post(JSON.stringify({ name: "🐕".repeat(100), categoryId: 1 }));
    expect(res.status).toBe(201);
    expect(((await res.json()) as { name: string }).name).toBe("🐕".repeat(100));
    const tooLong = await post(JSON.stringify({ name: "🐕".repeat(101), categoryId: 1 }));
    await expectClientError(tooLong, 400, "invalid_request");
  });

  it.each(["\u00a0", " ", "\u2003", "\ufeff", "\u3000 \u2028"])(
    "refuse a name that is only white space (%s)",
    async (name) => {
      await expectClientError(
        await post(`{"name":"${name}","categoryId":1}`),
        400,
        "invalid_request",
      );
    },
  );
});

describe("hostile headers and addresses get a clean 4xx", () => {
  it("answers a very long Authorization header with 401", async () => {
    const res = await api("/v1/pets", {
      headers: { Authorization: `Bearer ${"a".repeat(60_000)}` },
    });
    await expectClientError(res, 401, "unauthorized");
  });

  it("answers a very long query string with 400", async () => {
    await expectClientError(
      await api(`/v1/pets?limit=${"9".repeat(20_000)}`, { key }),
      400,
      "invalid_request",
    );
    await expectClientError(
      await api(`/v1/pets?cursor=${"A".repeat(20_000)}`, { key }),
      400,
      "invalid_request",
    );
  });

  it("answers a very long Idempotency-Key with 400", async () => {
    const res = await api("/v1/pets", {
      method: "POST",
      key,
      json: { name: "Rex", categoryId: 1 },
      headers: { "Idempotency-Key": "k".repeat(10_000) },
    });
    await expectClientError(res, 400, "invalid_request");
  });
});

describe("findDuplicateKey", () => {
  it("finds a repeated key only within one object", () => {
    expect(findDuplicateKey('{"a":1,"b":{"a":2}}')).toBeUndefined();
    expect(findDuplicateKey('[{"a":1},{"a":2}]')).toBeUndefined();
    expect(findDuplicateKey('{"a":"\\"a\\":","b":1}')).toBeUndefined();
    expect(findDuplicateKey('{"a":1,"b":{"c":1,"c":2}}')).toBe("c");
    expect(findDuplicateKey('{ "a" : 1 , "a" : 2 }')).toBe("a");
  });
});
