import { afterEach, describe, expect, it, vi } from "vitest";
import { inRanges, parseRange } from "../../../src/keys/address-ranges.ts";
import { expectError } from "../support/assertions.ts";
import { seedKey, testServices } from "../support/keys.ts";
import { setClock, windowsOf } from "../support/limiters.ts";
import { api, MANY_REQUESTS, send, sendInTurn, tally } from "../support/request.ts";

const ADMIN = { Authorization: "Bearer test-admin-token-of-at-least-32-characters" };

afterEach(() => vi.useRealTimers());

describe("ranges as written", () => {
  it.each([
    ["10.0.0.0/8", "10.0.0.0/8"],
    [" 203.0.113.7 ", "203.0.113.7/32"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["2001:DB8::/32", "2001:db8::/32"],
    ["2001:db8:0:0:0:0:0:1", "2001:db8::1/128"],
    ["::/0", "::/0"],
    ["::ffff:10.0.0.0/104", "10.0.0.0/8"],
    ["::ffff:192.0.2.1", "192.0.2.1/32"],
  ])("%s is stored as %s", (written, stored) => {
    expect(parseRange(written)).toEqual({ range: stored });
  });

  it.each([
    ["10.1.2.3/8", /bits set past its prefix; did you mean 10\.0\.0\.0\/8\?/],
    ["2001:db8::1/32", /did you mean 2001:db8::\/32\?/],
    ["10.0.0.0/33", /at most 32/],
    ["2001:db8::/129", /at most 128/],
    ["::ffff:10.0.0.0/95", /prefix of 96 or more/],
    ["10.0.0.0/", /no prefix length/],
    ["10.0.0.0/8/8", /not an address/],
    ["256.0.0.1", /not an address/],
    ["010.0.0.1", /not an address/],
    ["example.com", /not an address/],
    ["", /not an address/],
  ])("%s is refused", (written, reason) => {
    const parsed = parseRange(written);
    expect("problem" in parsed && parsed.problem).toMatch(reason);
  });
});

describe("an address against the ranges, at their edges", () => {
  const v4 = ["10.0.0.0/8"];
  const v6 = ["2001:db8::/32"];
  const one = ["203.0.113.7/32"];

  it.each<[readonly string[], string | undefined, boolean]>([
    [v4, "9.255.255.255", false],
    [v4, "10.0.0.0", true],
    [v4, "10.255.255.255", true],
    [v4, "11.0.0.0", false],
    [v4, "::ffff:10.1.2.3", true],
    [v4, "::FFFF:a01:203", true],
    [v4, "::ffff:11.0.0.0", false],
    [v4, "::10.1.2.3", false],
    [v4, "2001:db8::1", false],
    [v6, "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", false],
    [v6, "2001:db8::", true],
    [v6, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true],
    [v6, "2001:db9::", false],
    [v6, "10.0.0.1", false],
    [one, "203.0.113.7", true],
    [one, "203.0.113.8", false],
    [["0.0.0.0/0"], "198.51.100.1", true],
    [["0.0.0.0/0"], "::1", false],
    [["::/0"], "::1", true],
    [[...v4, ...v6], "2001:db8:1::9", true],
    [v4, undefined, false],
    [v4, "not an address", false],
    [v4, "", false],
  ])("%j holds %s: %s", (ranges, address, inside) => {
    expect(inRanges(ranges, address)).toBe(inside);
  });
});

describe("a key allowed only some addresses", MANY_REQUESTS, () => {
  const from = (ip: string) => ({ headers: { "CF-Connecting-IP": ip } });

  it("works from inside them and gets 403 from elsewhere, spending the caller's budget and never its own", async () => {
    setClock("2030-06-15T10:00:05Z");
    const { key, hash, row } = await seedKey({ plan: "free", allowedRanges: ["10.0.0.0/8"] });
    const inside = await send("/v1/pets?limit=1", { key, ...from("10.20.30.40") });
    expect(inside.status).toBe(200);
    expect(inside.headers.get("X-RateLimit-Remaining")).toBe("59");

    const outside = "198.51.100.23";
    const refused = await api("/v1/pets?limit=1", { key, ...from(outside) });
    // The caller's own budget of 60 a minute for requests without a working key.
    expect(refused.headers.get("RateLimit-Policy")).toBe('"minute";q=60;w=60');
    expect(refused.headers.get("X-RateLimit-Remaining")).toBe("59");
    await expectError(refused, 403, "address_not_allowed");

    // The rest of that budget, then more: 403 every time, never 429, never a Retry-After.
    const replies = await sendInTurn(70, "/v1/pets?limit=1", { key, ...from(outside) });
    expect(tally(replies)).toEqual({ 403: 70 });
    expect(replies.every((reply) => reply.headers.get("Retry-After") === null)).toBe(true);
    expect(replies.at(-1)?.headers.get("X-RateLimit-Remaining")).toBe("0");

    // The key's own windows counted the one request from inside, nothing else.
    const [minute] = await windowsOf(testServices().limiter, hash, {
      perMinute: 60,
      perDay: 1_000,
    });
    expect(minute?.remaining).toBe(59);
    const again = await send("/v1/pets?limit=1", { key, ...from("10.0.0.1") });
    expect(again.headers.get("X-RateLimit-Remaining")).toBe("58");
    expect(row.allowedRanges).toEqual(["10.0.0.0/8"]);
  });

  it("matches an IPv4-mapped IPv6 address as its IPv4 address, and IPv6 ranges by their prefix", async () => {
    const { key } = await seedKey({ allowedRanges: ["10.0.0.0/8", "2001:db8:42::/48"] });
    for (const [ip, status] of [
      ["::ffff:10.9.9.9", 200],
      ["::ffff:192.0.2.1", 403],
      ["2001:db8:42:ffff::1", 200],
      ["2001:db8:43::1", 403],
    ] as const) {
      expect((await send("/v1/pets?limit=1", { key, ...from(ip) })).status, ip).toBe(status);
    }
  });

  it("is refused where the address is unknown: a request that did not come through Cloudflare", async () => {
    const { key } = await seedKey({ allowedRanges: ["0.0.0.0/0", "::/0"] });
    await expectError(await api("/v1/pets?limit=1", { key }), 403, "address_not_allowed");
    expect((await send("/v1/pets?limit=1", { key, ...from("192.0.2.1") })).status).toBe(200);
  });

  it("gets 401, not 403, once the key is dead", async () => {
    const { key } = await seedKey({ allowedRanges: ["10.0.0.0/8"], revoked: true });
    await expectError(await api("/v1/pets", { key, ...from("192.0.2.1") }), 401, "unauthorized");
  });
});

describe("ranges when a key is made", () => {
  it.each<[string, unknown]>([
    ["an empty list", []],
    ["eleven ranges", Array.from({ length: 11 }, (_, i) => `10.${i}.0.0/16`)],
    ["a range with bits past its prefix", ["10.1.0.0/8"]],
    ["a name", ["example.com"]],
  ])("refuses %s with 400", async (_, allowedRanges) => {
    const response = await api("/admin/keys", {
      method: "POST",
      headers: ADMIN,
      json: { allowedRanges },
    });
    await expectError(response, 400, "invalid_request", {
      paths: [expect.stringMatching(/^allowedRanges/)],
    });
  });

  it("stores ten ranges as written in their plain form", async () => {
    const allowedRanges = Array.from({ length: 9 }, (_, i) => `10.${i}.0.0/16`);
    const made = await send("/admin/keys", {
      method: "POST",
      headers: ADMIN,
      json: { allowedRanges: [...allowedRanges, "2001:DB8::/32"] },
    });
    expect(made.status).toBe(201);
    expect(made.body.allowedRanges).toEqual([...allowedRanges, "2001:db8::/32"]);
  });
});
