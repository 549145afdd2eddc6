import { beforeAll, describe, expect, it } from "vitest";
import type { ErrorBody } from "../../../src/errors.ts";
import { createPet, expectError, freshIp } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { type ApiRequestInit, api } from "../support/request.ts";

let key: string;
let petId: number;

beforeAll(async () => {
  ({ key } = await seedKey());
  petId = (await createPet(key, { name: "Errand", categoryId: 4 })).id;
});

describe("unknown routes", () => {
  // `/` was here until the front page took it.
  it.each(["/nope", "/v2/pets", "/V1/pets", "/health/extra", "/pets"])(
    "answers %s with 404 not_found as JSON",
    async (path) => {
      await expectError(await api(path), 404, "not_found");
    },
  );

  it.each(["/v1/nope", "/v1", "/v1/", "/v1/pets/", "/v1/pets/1/photos", "/v1/orders"])(
    "answers %s with a key with 404 not_found as JSON",
    async (path) => {
      await expectError(await api(path, { key }), 404, "not_found");
    },
  );

  it("answers unknown paths with any method as 404, not 405", async () => {
    await expectError(await api("/nope", { method: "POST" }), 404, "not_found");
    await expectError(await api("/v1/nope", { method: "DELETE", key }), 404, "not_found");
  });
});

describe("methods a path does not serve", () => {
  it.each<[string, string, string]>([
    ["DELETE", "/v1/pets", "GET, HEAD, POST"],
    ["PUT", "/v1/pets", "GET, HEAD, POST"],
    ["PATCH", "/v1/pets", "GET, HEAD, POST"],
    ["PUT", "/v1/pets/1", "GET, HEAD, PATCH, DELETE"],
    ["POST", "/v1/pets/1", "GET, HEAD, PATCH, DELETE"],
    ["PUT", "/v1/categories/1", "GET, HEAD, PATCH, DELETE"],
    ["DELETE", "/v1/categories", "GET, HEAD, POST"],
  ])("answers %s %s with 405 and Allow: %s", async (method, path, allow) => {
    const res = await api(path, { method, key });
    await expectError(res, 405, "method_not_allowed");
    expect(res.headers.get("Allow")).toBe(allow);
  });

  it.each(["POST", "PUT", "DELETE"])("answers %s /health with 405 and Allow", async (method) => {
    const res = await api("/health", { method });
    await expectError(res, 405, "method_not_allowed");
    expect(res.headers.get("Allow")).toBe("GET, HEAD");
  });

  it("refuses an unsupported method with a body without touching the animals", async () => {
    const res = await api(`/v1/pets/${petId}`, {
      method: "PUT",
      key,
      json: { name: "Changed", categoryId: 4 },
    });
    await expectError(res, 405, "method_not_allowed");
    const after = await api(`/v1/pets/${petId}`, { key });
    expect(await after.json()).toMatchObject({ name: "Errand" });
  });

  it("asks for a key before saying a method is not allowed on /v1", async () => {
    const res = await api("/v1/pets", {
      method: "DELETE",
      headers: { "CF-Connecting-IP": freshIp() },
    });
    await expectError(res, 401, "unauthorized");
  });
});

describe("the one error envelope", () => {
  /** A reply of each kind the core API can give, all held to the same shape and the same silence. */
  const cases: [string, () => [string, ApiRequestInit], number, ErrorBody["code"], string[]?][] = [
    [
      "validation",
      () => ["/v1/pets", { method: "POST", key, json: {} }],
      400,
      "invalid_request",
      ["name", "categoryId"],
    ],
    ["query validation", () => ["/v1/pets?limit=0", { key }], 400, "invalid_request", ["limit"]],
    ["bad cursor", () => ["/v1/pets?cursor=%%%", { key }], 400, "invalid_request", ["cursor"]],
    [
      "malformed JSON",
      () => [
        "/v1/pets",
        { method: "POST", key, body: "{", headers: { "Content-Type": "application/json" } },
      ],
      400,
      "invalid_json",
    ],
    [
      "no key",
      () => ["/v1/pets", { headers: { "CF-Connecting-IP": freshIp() } }],
      401,
      "unauthorized",
    ],
    ["unknown animal", () => ["/v1/pets/424242", { key }], 404, "not_found"],
    ["unknown route", () => ["/v1/nope", { key }], 404, "not_found"],
    ["wrong method", () => ["/v1/pets", { method: "DELETE", key }], 405, "method_not_allowed"],
    [
      "too large",
      () => [
        "/v1/pets",
        {
          method: "POST",
          key,
          body: "x".repeat(70_000),
          headers: { "Content-Type": "application/json" },
        },
      ],
      413,
      "payload_too_large",
    ],
    [
      "wrong media type",
      () => [
        "/v1/pets",
        { method: "POST", key, body: "{}", headers: { "Content-Type": "text/plain" } },
      ],
      415,
      "unsupported_media_type",
    ],
  ];

  it.each(cases)(
    "renders %s as JSON {code, message, status} and nothing internal",
    async (_, request, status, code, paths) => {
      const [path, init] = request();
      const error = await expectError(await api(path, init), status, code, paths ? { paths } : {});
      // Only validation failures explain themselves field by field.
      expect("details" in error).toBe(code === "invalid_request");
    },
  );

  it("gives JSON errors even when the client asks for something else", async () => {
    const res = await api("/v1/pets/424242", { key, headers: { Accept: "text/html" } });
    await expectError(res, 404, "not_found");
  });
});
