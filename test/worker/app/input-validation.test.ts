import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { inputValidation, rejectInvalid } from "../../../src/validation.ts";

/*
 * A route's input is checked as its declaration says, or the Worker does
 * not build: a declaration the checks cannot honour fails at start-up, not
 * by letting a request through unchecked.
 */
describe("a route's declared input", () => {
  it("must name its headers in one object schema", () => {
    const listed = { headers: [z.object({ "If-Match": z.string() })] };
    expect(() => inputValidation(listed, rejectInvalid)).toThrow(
      "a route's headers must be one object schema",
    );
    const one = { headers: z.object({ "If-Match": z.string() }) };
    expect(inputValidation(one, rejectInvalid)).toBeTypeOf("function");
  });

  it("reads no cookies", () => {
    expect(() => inputValidation({ cookies: z.object({}) }, rejectInvalid)).toThrow(
      "no route reads cookies",
    );
  });
});
