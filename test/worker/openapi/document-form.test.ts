import { describe, expect, it } from "vitest";
import {
  inlineReferences,
  OPERATION_SCOPES,
  type OpenApiDocument,
} from "../support/openapi-contract.ts";
import { api } from "../support/request.ts";

async function documentAt(path: string): Promise<{ text: string; document: OpenApiDocument }> {
  const response = await api(path);
  expect(response.status).toBe(200);
  const text = await response.text();
  return { text, document: JSON.parse(text) as OpenApiDocument };
}

describe("the OpenAPI document", () => {
  it("is under 200 KB as sent and 30 KB gzipped", async () => {
    const { text } = await documentAt("/v1/openapi.json");
    const bytes = new TextEncoder().encode(text);
    expect(bytes.byteLength).toBeLessThan(200_000);
    const gzipped = new Response(
      new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip")),
    );
    expect((await gzipped.arrayBuffer()).byteLength).toBeLessThan(30_000);
  });

  it("states every operation's stability and the scope a key needs for it", async () => {
    const { document } = await documentAt("/v1/openapi.json");
    const stated = Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((operation) => ({
        id: operation.operationId,
        stability: operation["x-stability"],
        security: operation.security,
      })),
    );
    expect(stated.map(({ id }) => id).sort()).toEqual(Object.keys(OPERATION_SCOPES).sort());
    for (const { id, stability, security } of stated) {
      expect(["stable", "beta", "experimental"], id).toContain(stability);
      expect(security, id).toEqual([{ bearerAuth: [OPERATION_SCOPES[id]] }]);
    }
  });

  it("states the replies operations share once, and refers to them", async () => {
    const { document } = await documentAt("/v1/openapi.json");
    const listPets = document.paths["/pets"]?.get;
    expect(listPets?.responses["401"]).toEqual({ $ref: "#/components/responses/401" });
    expect(listPets?.responses["200"]?.headers?.["X-Request-Id"]).toEqual({
      $ref: "#/components/headers/X-Request-Id",
    });
    const written = inlineReferences(document).paths["/pets"]?.get?.responses["401"];
    expect(written?.headers?.["WWW-Authenticate"]?.required).toBe(true);
    expect(written?.headers?.["X-Request-Id"]?.required).toBe(true);
  });

  it("states the parameters operations share once, and refers to them", async () => {
    const { document } = await documentAt("/v1/openapi.json");
    const cursor = { $ref: "#/components/parameters/cursor" };
    expect(document.paths["/pets"]?.get?.parameters).toContainEqual(cursor);
    expect(document.paths["/store/orders"]?.get?.parameters).toContainEqual(cursor);
    const written = inlineReferences(document).paths["/pets"]?.get?.parameters;
    expect(written).toContainEqual(expect.objectContaining({ name: "cursor", in: "query" }));
  });
});
