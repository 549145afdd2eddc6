import { describe, expect, it } from "vitest";
import { bearerToken } from "../../../src/api/bearer-token.ts";

describe("the bearer token of an Authorization header", () => {
  it("is what follows the scheme, in any case, without the spaces around it", () => {
    expect(bearerToken("Bearer ps_test_abc")).toBe("ps_test_abc");
    expect(bearerToken("bearer \t ps_test_abc  ")).toBe("ps_test_abc");
    expect(bearerToken("BEARER token with spaces")).toBe("token with spaces");
  });

  it("is absent for no header, another scheme, or a bare Bearer", () => {
    for (const header of [
      undefined,
      "",
      "Basic dXNlcjpwYXNz",
      "Bearer",
      "Bearer   ",
      "Bearerabc",
    ]) {
      expect(bearerToken(header), String(header)).toBeUndefined();
    }
  });
});
