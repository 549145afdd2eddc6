import { z } from "@hono/zod-openapi";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { OperatorRoute } from "../../../src/api/route-table.ts";
import type { AppEnv } from "../../../src/context.ts";
import { type ErrorBody, handleError } from "../../../src/errors.ts";
import { bodyChecks } from "../../../src/middleware/request-body.ts";

/** A route that takes this body, with nothing else to it. */
function route(
  content: Record<string, { schema: z.ZodType }>,
  maxBodyBytes?: number,
): OperatorRoute {
  return {
    method: "post",
    path: "/things",
    request: { body: { required: true, content } },
    responses: { 204: { description: "Taken." } },
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
  };
}

/** An app whose one route checks its body as the route declares it, then takes it. */
function appFor(declared: OperatorRoute) {
  const checks = bodyChecks(declared);
  if (!checks) throw new Error("the route takes a body");
  const app = new Hono<AppEnv>();
  app.post("/things", async (c) => {
    await checks(c);
    return c.body(null, 204);
  });
  app.onError(handleError);
  return app;
}

/** The Error body of a refusal, checked against its status and code. */
async function refused(response: Response, status: number, code: ErrorBody["code"]) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as ErrorBody;
  expect(body).toMatchObject({ code, status });
  return body;
}

const send = (app: Hono<AppEnv>, type: string, body: BodyInit) =>
  app.request("/things", { method: "POST", headers: { "Content-Type": type }, body });

describe("a route's body, read from its media types", () => {
  it("takes every JSON media type it declares, with the JSON checks and 16 KiB", async () => {
    const change = z.object({ name: z.string() });
    const app = appFor(
      route({
        "application/json": { schema: change },
        "application/merge-patch+json": { schema: change },
      }),
    );
    expect((await send(app, "application/merge-patch+json", '{"name":"Rex"}')).status).toBe(204);
    expect((await send(app, "application/json; charset=utf-8", '{"name":"Rex"}')).status).toBe(204);
    await refused(await send(app, "application/merge-patch+json", "{"), 400, "invalid_json");
    const dup = await send(app, "application/json", '{"name":"a","name":"b"}');
    await refused(dup, 400, "invalid_json");
    await refused(
      await send(app, "application/json-patch+json", "[]"),
      415,
      "unsupported_media_type",
    );
    const large = await send(app, "application/json", `"${"x".repeat(16 * 1024)}"`);
    const error = await refused(large, 413, "payload_too_large");
    expect(error.message).toBe("The request body is larger than 16 KiB.");
  });

  it("takes another kind of body up to the size the route states, with no JSON checks", async () => {
    const photo = z.string().openapi({ format: "binary" });
    const app = appFor(
      route({ "image/jpeg": { schema: photo }, "image/png": { schema: photo } }, 5 * 1024 * 1024),
    );
    expect((await send(app, "image/png", new Uint8Array(5 * 1024 * 1024))).status).toBe(204);
    const large = await send(app, "image/jpeg", new Uint8Array(5 * 1024 * 1024 + 1));
    const error = await refused(large, 413, "payload_too_large");
    expect(error.message).toBe("The request body is larger than 5 MiB.");
    const wrong = await refused(
      await send(app, "image/gif", "GIF89a"),
      415,
      "unsupported_media_type",
    );
    expect(wrong.message).toBe("Send the body with Content-Type: image/jpeg or image/png.");
  });

  it("is not taken by a route that states no size for a body other than JSON", () => {
    const photo = z.string().openapi({ format: "binary" });
    expect(() => bodyChecks(route({ "image/png": { schema: photo } }))).toThrow(/maxBodyBytes/);
  });
});
