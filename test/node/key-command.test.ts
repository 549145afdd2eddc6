import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastLine, lines, makeSandbox, type Sandbox, sha256Hex } from "./cli.ts";
import { startFakeWorker, unusedUrl } from "./fake-worker.ts";

interface StoredRecord {
  plan: string;
  revoked: boolean;
  version: number;
  limits?: { perMinute: number; perDay: number };
}

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = makeSandbox();
});
afterAll(() => sandbox.remove());

// One key's life, in order: every wrangler call starts workerd, so the steps share their key.
describe("npm run key against local KV", () => {
  let key = "";
  let created: StoredRecord;
  let revokedVersion = 0;

  it("create prints a well-formed key alone on the last line and stores only its hash", async () => {
    const result = await sandbox.key(
      "create",
      "--plan",
      "free",
      "--account",
      "ops@example.com",
      "--persist-to",
      sandbox.stateDir,
    );
    expect(result.code).toBe(0);
    key = lastLine(result.stdout);
    expect(key).toMatch(/^ps_test_[0-9A-Za-z]{32}$/);
    expect(result.stdout.split(key)).toHaveLength(2); // shown once, nowhere else

    const stored = await sandbox.storedRecord(key);
    expect(stored).toEqual({
      account: "ops@example.com",
      plan: "free",
      createdAt: expect.any(String),
      revoked: false,
      lastFour: key.slice(-4),
      version: expect.any(Number),
    });
    expect(JSON.stringify(stored)).not.toContain(key.slice(8));
    created = stored as StoredRecord;
  });

  it("revoke marks the record revoked with a higher version and tells the running Worker", async () => {
    const worker = await startFakeWorker();
    try {
      const result = await sandbox.key(
        "revoke",
        key,
        "--persist-to",
        sandbox.stateDir,
        "--url",
        worker.url,
      );
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(worker.calls).toEqual([
        {
          method: "POST",
          path: `/admin/keys/${sha256Hex(key)}/policy`,
          authorization: `Bearer ${sandbox.adminToken}`,
          body: { revoked: true, plan: "free", version: expect.any(Number) },
        },
      ]);
      const [call] = worker.calls;
      revokedVersion = (call?.body as StoredRecord | undefined)?.version ?? 0;
      expect(revokedVersion).toBeGreaterThan(created.version);
    } finally {
      await worker.close();
    }
  });

  it("plan changes plan and limits; with no Worker running it warns in one line and exits 0", async () => {
    const result = await sandbox.key(
      "plan",
      key,
      "enterprise",
      "--per-minute",
      "120",
      "--per-day",
      "5000",
      "--persist-to",
      sandbox.stateDir,
      "--url",
      await unusedUrl(),
    );
    expect(result.code).toBe(0);
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(/^warning: .*not reachable.*in KV.*within a few minutes/);
  });

  it("KV then holds both changes, each with a higher version", async () => {
    const stored = (await sandbox.storedRecord(key)) as StoredRecord;
    expect(stored).toMatchObject({
      plan: "enterprise",
      limits: { perMinute: 120, perDay: 5000 },
      revoked: true,
    });
    expect(stored.version).toBeGreaterThan(revokedVersion);
  });

  it("revoke of a well-formed key that does not exist fails with one line, exit 1", async () => {
    const unknown = `ps_test_${"A".repeat(32)}`;
    const result = await sandbox.key("revoke", unknown, "--persist-to", sandbox.stateDir);
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual(["error: local KV holds no key with this value"]);
  });
});
