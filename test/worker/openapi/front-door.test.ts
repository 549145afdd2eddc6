import { describe, expect, it } from "vitest";
import type { OpenApiDocument } from "../support/openapi-contract.ts";
import { api } from "../support/request.ts";

async function documentAt(path: string): Promise<OpenApiDocument> {
  const response = await api(path);
  expect(response.status).toBe(200);
  return (await response.json()) as OpenApiDocument;
}

describe("GET /openapi.json", () => {
  it("serves the same document as /v1/openapi.json", async () => {
    const [v1, root] = await Promise.all([
      documentAt("/v1/openapi.json"),
      documentAt("/openapi.json"),
    ]);
    expect(root).toEqual(v1);
  });

  it.each(["/openapi.json", "/v1/openapi.json"])(
    "answers other methods at %s with 405 and Allow, no key needed",
    async (path) => {
      const response = await api(path, { method: "PUT" });
      expect(response.status).toBe(405);
      expect(response.headers.get("Allow")).toBe("GET, HEAD");
      expect(await response.json()).toMatchObject({ code: "method_not_allowed", status: 405 });
    },
  );
});

describe("GET /", () => {
  it("is a page without scripts that links the reference, the document and the dashboard", async () => {
    const response = await api("/");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain("<title>Pet Store API</title>");
    for (const path of ["/docs", "/v1/openapi.json", "/dashboard"]) {
      expect(html).toContain(`<a href="${path}">`);
    }
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("carries the reference's Content-Security-Policy", async () => {
    const [page, docs] = await Promise.all([api("/"), api("/docs")]);
    await Promise.all([page.arrayBuffer(), docs.arrayBuffer()]);
    expect(page.headers.get("Content-Security-Policy")).toBe(
      docs.headers.get("Content-Security-Policy"),
    );
    expect(page.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
  });

  it("answers other methods with 405 and Allow", async () => {
    const response = await api("/", { method: "POST" });
    expect(response.status).toBe(405);
    expect(response.headers.get("Allow")).toBe("GET, HEAD");
    await response.arrayBuffer();
  });
});
