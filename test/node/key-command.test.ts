import { describe, expect, it } from "vitest";
import { adminKey, lastLine, lines, petsWith, sharedServer } from "./cli.ts";

// The `npm start` the Node files share, on its default state in its sandbox, so
// the commands here need no --url and no --persist-to: they find it themselves.
const local = sharedServer();

async function createKey(...args: string[]): Promise<string> {
  const result = await local.sandbox.key("create", ...args);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return lastLine(result.stdout);
}

describe("npm run key -- create", () => {
  it("prints the key alone on the last line, once, and it works at once", async () => {
    const result = await local.sandbox.key("create", "--plan", "free");
    expect(result.code).toBe(0);
    const key = lastLine(result.stdout);
    expect(key).toMatch(/^ps_test_[0-9A-Za-z]{32}$/);
    expect(result.stdout.split(key)).toHaveLength(2);
    expect(result.stdout).toContain("operator@petstore.test"); // the environment's operator account
    expect(await petsWith(local.server.origin, key)).toEqual({ status: 200, limit: "60" });
  });

  it("without --plan makes a key that follows its account's plan", async () => {
    await createKey("--account", "follower@example.com");
    const list = await local.sandbox.key("list", "--account", "follower@example.com");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/active\s+free\s+60\s+1000\s+account/);
  });

  it("refuses a Free account's 4th key in one line", async () => {
    const account = "full@example.com";
    // The first two through the admin endpoint the command calls: a command is a Node start each.
    for (let made = 0; made < 2; made++) await adminKey(local, { account });
    await createKey("--account", account);
    const result = await local.sandbox.key("create", "--account", account);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/already has 3 working keys.*revoke a key first/);
  });

  it("makes a key with only some scopes, an expiry and address ranges, and says so", async () => {
    const result = await local.sandbox.key(
      "create",
      "--account",
      "narrow@example.com",
      "--scopes",
      "pets:read,orders:read",
      "--expires-in",
      "30d",
      "--allow-ip",
      "127.0.0.0/8",
      "--allow-ip",
      "::1",
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /It has pets:read,orders:read, expires \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, and works from 127\.0\.0\.0\/8,::1\/128\./,
    );
    const key = lastLine(result.stdout);
    expect((await petsWith(local.server.origin, key)).status).toBe(200);
    const write = await fetch(`${local.server.origin}/v1/pets`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Rex", categoryId: 1 }),
    });
    await write.body?.cancel();
    expect(write.status).toBe(403);
    expect(write.headers.get("WWW-Authenticate")).toContain('scope="pets:write"');
  });
});

describe("npm run key -- revoke", () => {
  it("refuses the key from the very next request", async () => {
    const key = await adminKey(local, { plan: "pro" });
    expect((await petsWith(local.server.origin, key)).status).toBe(200);
    const result = await local.sandbox.key("revoke", key);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`ending in ${key.slice(-4)}`);
    expect((await petsWith(local.server.origin, key)).status).toBe(401);
    expect(result.stdout).not.toContain(key);
  });

  it("says in one line, exit 1, that no key has a well-formed value it does not know", async () => {
    const result = await local.sandbox.key("revoke", `ps_test_${"A".repeat(32)}`);
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: no key has this value at http:\/\/127\.0\.0\.1:\d+/);
  });

  it("with a wrong ADMIN_TOKEN in the environment says which token to check", async () => {
    const key = await adminKey(local, { plan: "free" });
    const result = await local.sandbox.run("key", ["revoke", key], {
      ADMIN_TOKEN: "not-the-token",
    });
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      `error: the Worker at ${local.server.origin} refused the operator token (401); check the ADMIN_TOKEN environment variable`,
    ]);
    expect((await petsWith(local.server.origin, key)).status).toBe(200);
  });

  it("with --url talks to the Worker named", async () => {
    const key = await adminKey(local, { plan: "free" });
    const result = await local.sandbox.key("revoke", key, "--url", `${local.server.origin}/v1`);
    expect(result.code).toBe(0);
    expect((await petsWith(local.server.origin, key)).status).toBe(401);
  });
});

describe("npm run key -- plan", () => {
  it("changes the key's limit from its next request, and back to its account's", async () => {
    const key = await adminKey(local, { plan: "free", account: "mover@example.com" });
    expect((await petsWith(local.server.origin, key)).limit).toBe("60");

    expect((await local.sandbox.key("plan", key, "pro")).code).toBe(0);
    expect((await petsWith(local.server.origin, key)).limit).toBe("300");

    const numbers = ["--per-minute", "7", "--per-day", "100"];
    expect((await local.sandbox.key("plan", key, "enterprise", ...numbers)).code).toBe(0);
    expect((await petsWith(local.server.origin, key)).limit).toBe("7");

    const back = await local.sandbox.key("plan", key, "account");
    expect(back.code).toBe(0);
    expect(back.stdout).toContain("from its account");
    expect((await petsWith(local.server.origin, key)).limit).toBe("60");
  });
});

describe("npm run key -- list", () => {
  it("shows each key of the account by its last four, with status and limits", async () => {
    const account = "lister@example.com";
    const kept = await adminKey(local, { account, plan: "business" });
    const revoked = await adminKey(local, { account });
    expect((await local.sandbox.key("revoke", revoked)).code).toBe(0);

    const result = await local.sandbox.key("list", "--account", account);
    expect(result.code).toBe(0);
    const [heading, header, ...rows] = lines(result.stdout);
    expect(heading).toMatch(/^lister@example\.com: free \(60\/min, 1,000\/day\), no password yet/);
    expect(header).toMatch(
      /^KEY\s+CREATED\s+LAST USED\s+EXPIRES\s+SCOPES\s+ADDRESSES\s+STATUS\s+PLAN\s+PER MINUTE\s+PER DAY\s+LIMITS FROM$/,
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(
      new RegExp(`^…${revoked.slice(-4)} .* revoked .* free +60 +1000 +account$`),
    );
    expect(rows[1]).toMatch(
      new RegExp(`^…${kept.slice(-4)} .* active +business +1000 +100000 +key$`),
    );
    expect(result.stdout).not.toContain(kept);
  });

  it("shows each key's last use, expiry, scopes and addresses", async () => {
    const account = "detailed@example.com";
    const used = await adminKey(local, { account });
    expect((await petsWith(local.server.origin, used)).status).toBe(200);
    await local.sandbox.key(
      "create",
      "--account",
      account,
      "--scopes",
      "events:read",
      "--expires-in",
      "12h",
      "--allow-ip",
      "10.0.0.0/8",
    );
    const result = await local.sandbox.key("list", "--account", account);
    expect(result.code).toBe(0);
    const [, , narrow, broad] = lines(result.stdout);
    const minute = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC";
    const second = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC";
    expect(narrow).toMatch(
      new RegExp(`^…\\w{4} +${minute} +never +${second} +events:read +10\\.0\\.0\\.0/8 +active `),
    );
    expect(broad).toMatch(
      new RegExp(`^…${used.slice(-4)} +${minute} +${minute} +never +all +any +active `),
    );
  });

  it("without --account lists the operator account's keys, as the README writes it", async () => {
    const made = await createKey();
    const result = await local.sandbox.key("list");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const [heading, , ...rows] = lines(result.stdout);
    expect(heading).toMatch(/^operator@petstore\.test: enterprise/);
    expect(rows.some((row) => row.startsWith(`…${made.slice(-4)} `))).toBe(true);
  });

  it("says in one line that an unknown account does not exist", async () => {
    const result = await local.sandbox.key("list", "--account", "nobody@example.com");
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^error: no account nobody@example\.com at /);
  });
});
