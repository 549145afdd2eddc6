import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { seedKey } from "../support/keys.ts";
import { setClock } from "../support/limiters.ts";
import { header, MANY_REQUESTS, send, sendInTurn, tally } from "../support/request.ts";

const BAD_KEY = `ps_test_${"Z".repeat(32)}`;
const fromIp = (ip: string) => ({ "CF-Connecting-IP": ip });

beforeEach(() => setClock("2030-06-15T10:00:05Z"));
afterEach(() => vi.useRealTimers());

describe("the keyless budget per client IP", MANY_REQUESTS, () => {
  it("refuses the 61st bad-key request in a minute with 429 rate_limited", async () => {
    const headers = fromIp("203.0.113.1");
    const replies = await sendInTurn(61, "/v1/pets", { headers, key: BAD_KEY });
    expect(tally(replies)).toEqual({ 401: 60, rate_limited: 1 });
    expect(replies.map((reply) => header(reply, "X-RateLimit-Remaining"))).toEqual([
      ...Array.from({ length: 60 }, (_, index) => String(59 - index)),
      "0",
    ]);
    const refused = replies[60];
    expect(refused && header(refused, "Retry-After")).toBe("55");
    expect(refused && header(refused, "X-RateLimit-Limit")).toBe("60");
    expect(refused && header(refused, "RateLimit-Policy")).toBe('"minute";q=60;w=60');
    expect(refused && header(refused, "RateLimit")).toBe('"minute";r=0;t=55');
  });

  it("counts an IPv6 client by its /64, so fresh addresses in it share one budget", async () => {
    const replies = [];
    for (let host = 1; host <= 61; host += 1) {
      replies.push(
        await send("/v1/pets", { headers: fromIp(`2001:db8:77:1::${host.toString(16)}`) }),
      );
    }
    expect(tally(replies)).toEqual({ 401: 60, rate_limited: 1 });
    const elsewhere = await send("/v1/pets", { headers: fromIp("2001:db8:77:2::1") });
    expect(elsewhere.status).toBe(401);
  });

  it("counts one IPv4 address as one budget, however it is written", async () => {
    const spellings = [
      "63.28.80.124",
      "::ffff:63.28.80.124",
      "0:0:0:0:0:ffff:3f1c:507c",
      "::FFFF:3f1c:507c",
    ];
    const replies = [];
    for (const ip of spellings) {
      replies.push(...(await sendInTurn(15, "/v1/pets", { headers: fromIp(ip) })));
    }
    expect(tally(replies)).toEqual({ 401: 60 });
    expect(replies.map((reply) => header(reply, "X-RateLimit-Remaining")).at(-1)).toBe("0");
    for (const ip of spellings) {
      expect((await send("/v1/pets", { headers: fromIp(ip) })).body.code, ip).toBe("rate_limited");
    }
    // Another address mapped the same way is another budget.
    const other = await send("/v1/pets", { headers: fromIp("::ffff:3f1c:507d") });
    expect(other.status).toBe(401);
    expect(header(other, "X-RateLimit-Remaining")).toBe("59");
  });

  it("shares one budget between missing, malformed and unknown keys", async () => {
    const headers = fromIp("203.0.113.2");
    await sendInTurn(20, "/v1/pets", { headers });
    await sendInTurn(20, "/v1/pets", { headers: { ...headers, Authorization: "Basic abc" } });
    await sendInTurn(20, "/v1/pets", { headers, key: BAD_KEY });
    const refused = await send("/v1/pets", { headers });
    expect(refused.body.code).toBe("rate_limited");
  });

  it("leaves other client IPs and valid keys on the same IP unaffected", async () => {
    const headers = fromIp("203.0.113.3");
    await sendInTurn(61, "/v1/pets", { headers, key: BAD_KEY });
    const other = await send("/v1/pets", { headers: fromIp("203.0.113.4"), key: BAD_KEY });
    expect(other.status).toBe(401);
    expect(header(other, "X-RateLimit-Remaining")).toBe("59");
    const { key } = await seedKey({ plan: "free" });
    const keyed = await send("/v1/pets", { headers, key });
    expect(keyed.status).toBe(200);
    expect(header(keyed, "X-RateLimit-Remaining")).toBe("59");
  });

  it("opens again in the next minute", async () => {
    const headers = fromIp("203.0.113.5");
    await sendInTurn(61, "/v1/pets", { headers });
    vi.setSystemTime(new Date("2030-06-15T10:01:00Z"));
    const reply = await send("/v1/pets", { headers });
    expect(reply.status).toBe(401);
    expect(header(reply, "X-RateLimit-Remaining")).toBe("59");
  });
});
