import { afterEach, describe, expect, it, vi } from "vitest";
import { throttleAddress } from "../../../src/api/client-address.ts";
import { DashboardBrowser, PASSWORD, uniqueEmail } from "../support/dashboard-browser.ts";
import { setClock } from "../support/limiters.ts";
import { MANY_REQUESTS } from "../support/request.ts";

afterEach(() => {
  vi.useRealTimers();
});

const browserAt = (ip: string) => new DashboardBrowser(ip);

describe("sign-in throttling", MANY_REQUESTS, () => {
  it("ten failures from one address do not lock out the owner at another", async () => {
    setClock("2030-06-15T10:00:05Z");
    const email = uniqueEmail();
    await new DashboardBrowser().signUp(email);
    const attacker = browserAt("203.0.113.10");
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await attacker.signIn(email, "wrong password")).status).toBe(400);
    }
    const refused = await attacker.signIn(email);
    expect(refused.status).toBe(429);
    expect(refused.response.headers.get("Retry-After")).toBe("55");
    expect(refused.html).toContain("Too many attempts. Wait 55 seconds, then try again.");
    expect(attacker.cookies.has("ps_session")).toBe(false);

    const owner = browserAt("198.51.100.77");
    const signedIn = await owner.signIn(email);
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe("/dashboard/account");

    // The next minute the attacker's budget for this email starts over.
    vi.setSystemTime(new Date("2030-06-15T10:01:00Z"));
    expect((await attacker.signIn(email)).status).toBe(303);
  });

  it("counts every address of one IPv6 /64 as one address", async () => {
    setClock("2030-06-15T10:00:05Z");
    for (let attempt = 0; attempt < 30; attempt += 1) {
      const browser = browserAt(`2001:db8:7:1::${(attempt + 1).toString(16)}`);
      expect((await browser.signIn(uniqueEmail("spray"), "wrong password")).status).toBe(400);
    }
    const sameNetwork = browserAt("2001:db8:7:1:ffff:ffff:ffff:ffff");
    expect((await sameNetwork.signIn(uniqueEmail("spray"), "wrong password")).status).toBe(429);
    const otherNetwork = browserAt("2001:db8:7:2::1");
    expect((await otherNetwork.signIn(uniqueEmail("spray"), "wrong password")).status).toBe(400);
  });
});

describe("sign-up throttling", MANY_REQUESTS, () => {
  it("allows ten sign-ups an hour from one address, then refuses until the hour ends", async () => {
    setClock("2030-06-15T10:20:00Z");
    const ip = "203.0.113.20";
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await browserAt(ip).signUp(uniqueEmail())).status).toBe(303);
    }
    const email = uniqueEmail();
    const refused = await browserAt(ip).signUp(email);
    expect(refused.status).toBe(429);
    expect(refused.response.headers.get("Retry-After")).toBe("2400");
    expect(refused.html).toContain("Too many attempts. Wait 2400 seconds, then try again.");

    // Another address is not held back, and this one may try again in the next hour.
    expect((await browserAt("203.0.113.21").signUp(uniqueEmail())).status).toBe(303);
    vi.setSystemTime(new Date("2030-06-15T10:59:59Z"));
    expect((await browserAt(ip).signUp(email)).status).toBe(429);
    vi.setSystemTime(new Date("2030-06-15T11:00:00Z"));
    expect((await browserAt(ip).signUp(email, PASSWORD)).status).toBe(303);
  });
});

describe("the address a throttle counts", () => {
  it("is an IPv4 address, an IPv4-mapped IPv6 address read as its IPv4 address", () => {
    for (const ip of ["203.0.113.9", "::ffff:203.0.113.9", "0:0:0:0:0:FFFF:cb00:7109"]) {
      expect(throttleAddress(ip), ip).toBe("203.0.113.9");
    }
  });

  it("is the /64 of an IPv6 address, however it is written", () => {
    const prefix = "2001:db8:0:1::/64";
    for (const ip of [
      "2001:db8:0:1::1",
      "2001:DB8:0:1:0:0:0:2",
      "2001:0db8:0000:0001:ffff:ffff:ffff:ffff",
      "2001:db8::1:0:0:0:3",
    ]) {
      expect(throttleAddress(ip), ip).toBe(prefix);
    }
    expect(throttleAddress("::1")).toBe("::/64");
    expect(throttleAddress("2001:db8:0:2::1")).toBe("2001:db8:0:2::/64");
  });

  it("keeps text it cannot read as it is, and names a missing address", () => {
    expect(throttleAddress("192.0.2.256")).toBe("192.0.2.256");
    expect(throttleAddress("not an address")).toBe("not an address");
    expect(throttleAddress(undefined)).toBe("unknown");
  });
});
