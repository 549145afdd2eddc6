import { describe, expect, it } from "vitest";
import { adminKey, lastLine, lines, petsWith, sharedServer } from "./cli.ts";

// The `npm start` the Node files share; the commands find it themselves.
const local = sharedServer();

const limitOf = async (key: string) => (await petsWith(local.server.origin, key)).limit;

describe("npm run account -- plan", () => {
  it("moves every key that follows the account, from its next request, and keys made later", async () => {
    const account = "team@example.com";
    const first = await adminKey(local, { account });
    const second = await adminKey(local, { account });
    const own = await adminKey(local, { account, plan: "business" });
    expect([await limitOf(first), await limitOf(second)]).toEqual(["60", "60"]);

    const result = await local.sandbox.account("plan", account, "pro");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Moved team@example\.com .* to pro \(300\/min, 10,000\/day\); 2 of its keys took it\.$/m,
    );
    expect([await limitOf(first), await limitOf(second)]).toEqual(["300", "300"]);
    expect(await limitOf(own)).toBe("1000"); // limits of its own win

    const later = await adminKey(local, { account });
    expect(await limitOf(later)).toBe("300");
  });

  it("takes Enterprise numbers", async () => {
    const account = "big@example.com";
    const key = await adminKey(local, { account });
    const numbers = ["--per-minute", "9", "--per-day", "500"];
    expect((await local.sandbox.account("plan", account, "enterprise", ...numbers)).code).toBe(0);
    expect(await limitOf(key)).toBe("9");
  });

  it("says in one line, exit 1, that an unknown account does not exist", async () => {
    const result = await local.sandbox.account("plan", "ghost@example.com", "pro");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: no account ghost@example\.com at /);
  });
});

describe("npm run account -- invite", () => {
  it("prints a one-time link, last, that opens the page setting the password", async () => {
    const result = await local.sandbox.account("invite", "newcomer@example.com");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Made the account newcomer@example.com");
    const link = lastLine(result.stdout);
    expect(link.startsWith(`${local.server.origin}/dashboard/invite/`)).toBe(true);

    const page = await fetch(link);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Set your password");
    expect(html).toContain("newcomer@example.com");
  });

  it("for an account that exists makes no new one", async () => {
    await adminKey(local, { account: "member@example.com" });
    const result = await local.sandbox.account("invite", "member@example.com");
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("Made the account");
    expect((await fetch(lastLine(result.stdout))).status).toBe(200);
  });
});
